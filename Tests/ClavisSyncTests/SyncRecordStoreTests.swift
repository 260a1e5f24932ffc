import ClavisCore
import ClavisSync
import ClavisTestSupport
import Foundation
import Testing

/// Two devices of one account syncing sealed records through a real PostgreSQL: writes that replace the version they
/// saw, catching up by change number, a notification per change, and a server that holds nothing in clear.
@Suite(.serialized) struct SyncRecordStoreTests {
    private func item(_ account: String, secret: String, label: String = "Mail") -> SyncedItem {
        SyncedItem(
            itemClass: .genericPassword,
            attributes: [
                .account: .string(account), .service: .string("mail.example.org"), .accessGroup: .string("TEAM.mail"),
                .accessible: .string(ProtectionClass.whenUnlocked.rawValue), .synchronizable: .bool(true),
                .label: .string(label),
            ],
            secret: SecureBytes(Array(secret.utf8)), modified: 1_765_000_000_000)
    }

    @Test func twoDevicesSyncThroughTheServerAndItHoldsNothingInClear() throws {
        let server = try PostgresServer()
        try server.prepareSync(accounts: ["alice", "bob"])
        let keys = SyncKeys.generate(generation: 1)
        let laptop = try SyncDeviceKey.generate()
        let desktop = try SyncDeviceKey.generate()
        let members = [laptop.identifier: laptop.publicKey, desktop.identifier: desktop.publicKey]
        let onLaptop = SyncRecordStore(database: try server.connect(as: "alice"))
        let onDesktop = SyncRecordStore(database: try server.connect(as: "alice"))
        try onDesktop.database.listen("clavis_sync.alice")

        // The laptop writes three items; the desktop is woken and catches up from nothing.
        let secrets = ["first-secret-1", "second-secret-2", "third-secret-3"]
        var written: [Int64] = []
        for (index, secret) in secrets.enumerated() {
            let record = try SyncRecord.seal(
                item("user\(index)@example.org", secret: secret), version: 1, keys: keys, by: laptop)
            written.append(try onLaptop.write(record, replacing: nil))
        }
        #expect(written == written.sorted() && Set(written).count == 3)
        #expect(try onDesktop.database.nextNotification(waitingAtMost: 10_000)?.channel == "clavis_sync.alice")
        let changes = try onDesktop.changes(after: 0)
        #expect(changes.map(\.change) == written)
        let opened = try changes.map { (change) throws(KeychainError) in
            try change.record.open(keys: [1: keys], members: members)
        }
        #expect(
            opened.compactMap { $0.secret.map { String(decoding: $0.unprotectedBytes(), as: UTF8.self) } } == secrets)
        #expect(try onDesktop.changes(after: written[2]).isEmpty)

        // The desktop changes the first item; the laptop, writing over the version it saw, learns it came second.
        let first = changes[0].record
        let changed = try SyncRecord.seal(
            item("user0@example.org", secret: "changed-on-desktop"), version: 2, keys: keys, by: desktop)
        let desktopChange = try onDesktop.write(changed, replacing: 1)
        let late = try SyncRecord.seal(
            item("user0@example.org", secret: "changed-on-laptop"), version: 2, keys: keys, by: laptop)
        let conflict = #expect(throws: KeychainError.self) { try onLaptop.write(late, replacing: 1) }
        #expect(conflict?.code == .duplicateItem)
        #expect(throws: KeychainError.self) { try onLaptop.write(first, replacing: nil) }
        let caughtUp = try onLaptop.changes(after: written[2])
        #expect(caughtUp.map(\.change) == [desktopChange])
        #expect(
            try caughtUp[0].record.open(keys: [1: keys], members: members, newerThan: 1).secret
                == SecureBytes(Array("changed-on-desktop".utf8)))

        // Bob's devices see none of it.
        let onBobsDevice = SyncRecordStore(database: try server.connect(as: "bob"))
        #expect(try onBobsDevice.changes(after: 0).isEmpty)

        // A dump of every table holds no secret, account, service, label or access group, in text or in hex.
        let dump = try PostgresServer.run(
            "/usr/lib/postgresql/15/bin/pg_dump", ["--dbname", server.connectionString(), "--schema", "clavis_sync"])
        #expect(dump.contains("clavis_sync.records"))
        let known = secrets + ["changed-on-desktop", "user0@example.org", "mail.example.org", "Mail", "TEAM.mail"]
        for text in known {
            let hex = Array(text.utf8).map { String(format: "%02x", $0) }.joined()
            #expect(!dump.contains(text) && !dump.lowercased().contains(hex), "\(text) is in the server's tables")
        }
    }
}
