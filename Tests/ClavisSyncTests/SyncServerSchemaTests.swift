import ClavisCore
import ClavisSync
import ClavisTestSupport
import Foundation
import Testing

/// `SyncServerSchema` and `SyncServerAccounts` on a real PostgreSQL: the schema installs once and stays, a newer one
/// is refused, and row-level security keeps each account to its own rows and notifications.
@Suite(.serialized) struct SyncServerSchemaTests {
    private func record(_ id: UInt8, version: Int64 = 1) -> [SyncParameter] {
        [
            .bytes([UInt8](repeating: id, count: 32)), .integer(version), .bytes([1]), .bytes([0xC0, id]),
            .bytes([0x5E]),
        ]
    }

    private let insertRecord = """
        INSERT INTO clavis_sync.records (record_id, version, writer, ciphertext, signature)
        VALUES ($1, $2, $3, $4, $5)
        """

    @Test func theSchemaInstallsOnceAndAGivenVersionIsKept() throws {
        let server = try PostgresServer()
        let database = try server.connect()
        #expect(try SyncServerSchema.install(on: database) == .init(from: 0, to: SyncServerSchema.currentVersion))
        #expect(
            try SyncServerSchema.install(on: database)
                == .init(from: SyncServerSchema.currentVersion, to: SyncServerSchema.currentVersion))
        let tables = try database.execute(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'clavis_sync' ORDER BY 1"
        ).compactMap { $0[0].text }
        #expect(
            tables == ["circles", "high_water_marks", "join_requests", "records", "schema_version", "wrapped_keys"])
        let secured = try database.execute(
            """
            SELECT count(*) FROM pg_class JOIN pg_namespace ON pg_namespace.oid = relnamespace
            WHERE nspname = 'clavis_sync' AND relkind = 'r' AND relrowsecurity AND relforcerowsecurity
            """)
        #expect(secured.first?[0].integer == 5)
    }

    @Test func aDatabaseANewerClavisMigratedIsRefusedAndLeftAlone() throws {
        let server = try PostgresServer()
        let database = try server.connect()
        _ = try SyncServerSchema.install(on: database)
        let newer = Int64(SyncServerSchema.currentVersion + 1)
        try database.execute("UPDATE clavis_sync.schema_version SET version = $1", [.integer(newer)])
        let error = #expect(throws: KeychainError.self) { _ = try SyncServerSchema.install(on: database) }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("schema version \(newer), newer than this build's") == true)
        #expect(try database.execute("SELECT version FROM clavis_sync.schema_version").first?[0].integer == newer)
    }

    @Test func eachAccountReachesOnlyItsOwnRows() throws {
        let server = try PostgresServer()
        let administrator = try server.prepareSync(accounts: ["alice", "bob", "bob"])
        #expect(try SyncServerAccounts.list(on: administrator) == ["alice", "bob"])
        // Row-level security does not hold a superuser: it cannot be an account.
        let superuser = #expect(throws: KeychainError.self) {
            try SyncServerAccounts.add(server.administrator, on: administrator)
        }
        #expect(superuser?.code == .param)

        let alice = try server.connect(as: "alice")
        let bob = try server.connect(as: "bob")
        try alice.execute(insertRecord, record(1))
        try bob.execute(insertRecord, record(2))
        // Each sees its own record, stamped with its own name.
        let seen = try alice.execute("SELECT account::text, record_id FROM clavis_sync.records")
        #expect(seen.map { $0[0].text } == ["alice"])
        #expect(try bob.execute("SELECT record_id FROM clavis_sync.records").map { $0[0].bytes?.first } == [2])
        // Bob can neither change, delete nor claim Alice's rows.
        let alicesRecord: [SyncParameter] = [.bytes([UInt8](repeating: 1, count: 32))]
        #expect(
            try bob.execute("UPDATE clavis_sync.records SET version = 9 WHERE record_id = $1 RETURNING 1", alicesRecord)
                .isEmpty)
        #expect(
            try bob.execute("DELETE FROM clavis_sync.records WHERE record_id = $1 RETURNING 1", alicesRecord).isEmpty)
        #expect(try bob.execute("DELETE FROM clavis_sync.records RETURNING 1").count == 1, "his own only")
        let claimed = #expect(throws: KeychainError.self) {
            try bob.execute(
                "INSERT INTO clavis_sync.records (account, record_id, version, writer, ciphertext, signature)"
                    + " VALUES ('alice', $1, $2, $3, $4, $5)", record(3))
        }
        #expect(claimed?.code == .missingEntitlement)
        #expect(try alice.execute("SELECT version FROM clavis_sync.records").map { $0[0].integer } == [1])
        // A record identifier is a 32-byte digest; anything else is refused.
        #expect(throws: KeychainError.self) {
            try alice.execute(insertRecord, [.bytes([1, 2]), .integer(1), .bytes([1]), .bytes([0]), .bytes([0])])
        }
        // A role outside the accounts reaches nothing.
        try administrator.execute("CREATE ROLE mallory LOGIN")
        let mallory = try server.connect(as: "mallory")
        let refused = #expect(throws: KeychainError.self) { try mallory.execute("SELECT * FROM clavis_sync.records") }
        #expect(refused?.code == .missingEntitlement)
    }

    @Test func aChangeWakesTheAccountsListeners() throws {
        let server = try PostgresServer()
        try server.prepareSync(accounts: ["alice"])
        let device = try server.connect(as: "alice")
        let writer = try server.connect(as: "alice")
        try device.listen("clavis_sync.alice")
        #expect(try device.nextNotification(waitingAtMost: 0) == nil)
        let change = try writer.execute(insertRecord + " RETURNING change", record(7)).first?[0].integer
        let notification = try device.nextNotification(waitingAtMost: 10_000)
        #expect(notification == SyncNotification(channel: "clavis_sync.alice", payload: String(change ?? -1)))
    }

    @Test func namesThatAreNotPlainAreRefusedBeforeAnySQL() throws {
        for name in [
            "Alice", "1st", "a b", "x\"; DROP TABLE clavis_sync.records; --", "", String(repeating: "a", count: 64),
        ] {
            #expect(throws: KeychainError.self) { try SyncIdentifier.check(name) }
        }
        try SyncIdentifier.check("alice_2.laptop")
    }

    @Test func anUnreachableServerIsNotAvailable() throws {
        let error = #expect(throws: KeychainError.self) {
            _ = try SyncDatabase(connectionString: "host=/nonexistent-clavis-socket dbname=none connect_timeout=2")
        }
        #expect(error?.code == .notAvailable)
        #expect(error?.reason.hasPrefix("cannot reach the sync database: ") == true)
    }
}
