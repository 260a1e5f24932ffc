import ClavisCore
import ClavisSync
import ClavisTestSupport
import Foundation
import Testing

/// A device's keychain as the sync engine sees it, held in memory: the engine's side of the seam is what these tests
/// check (clavisd's keychain fills it in the product), through a real PostgreSQL.
final class MemoryKeychain: SyncLocalItems {
    /// The items and tombstones, by account.
    var items: [String: SyncedItem] = [:]
    /// The time the next local change is stamped with.
    var clock = Int64(Date().timeIntervalSince1970 * 1000)
    /// While true, applying fails as a locked keychain's would.
    var isLocked = false
    /// Accounts whose items this keychain refuses, as a keychain refuses an attribute its build does not know.
    var refusedAccounts: Set<String> = []

    func itemsToSync() throws(KeychainError) -> [SyncedItem] { items.values.sorted { $0.modified < $1.modified } }

    func apply(_ item: SyncedItem) throws(KeychainError) {
        if isLocked { throw KeychainError(.interactionNotAllowed, "the keychain is locked") }
        if refusedAccounts.contains(item.attributes[.account]?.stringValue ?? "") {
            throw KeychainError(.noSuchAttribute, "an attribute this build does not know")
        }
        items[item.attributes[.account]?.stringValue ?? ""] = item
        clock = max(clock, item.modified)
    }

    /// Adds or changes the item of `account` locally.
    func set(_ account: String, secret: String, at time: Int64? = nil) {
        clock += 1
        items[account] = SyncedItem(
            itemClass: .genericPassword,
            attributes: [
                .account: .string(account), .service: .string("sync.example.org"), .accessGroup: .string("TEAM.app"),
                .accessible: .string(ProtectionClass.whenUnlocked.rawValue), .synchronizable: .bool(true),
            ],
            secret: SecureBytes(Array(secret.utf8)), modified: time ?? clock)
    }

    /// Deletes the item of `account` locally, leaving its tombstone.
    func delete(_ account: String) {
        clock += 1
        items[account]?.secret = nil
        items[account]?.modified = clock
    }

    /// The secret of `account`, `nil` when absent or deleted.
    func secret(_ account: String) -> String? {
        items[account]?.secret.map { String(decoding: $0.unprotectedBytes(), as: UTF8.self) }
    }
}

/// Three devices syncing through one account: adds, updates and deletes reach every device, the newest change wins
/// a conflict (a tie goes to the greater device identifier), and changes made while the server is away go out when
/// it returns.
@Suite(.serialized) struct SyncEngineTests {
    /// A device: its keychain, its engine, and its connection to the server.
    final class Device {
        let keychain = MemoryKeychain()
        var engine: SyncEngine
        var circles: SyncCircleStore
        var records: SyncRecordStore

        init(_ membership: SyncMembership, server: PostgresServer) throws {
            engine = SyncEngine(membership: membership)
            let database = try server.connect(as: "alice")
            circles = SyncCircleStore(database: database)
            records = SyncRecordStore(database: database)
        }

        /// Connects again (after the server came back).
        func reconnect(_ server: PostgresServer) throws {
            let database = try server.connect(as: "alice")
            circles = SyncCircleStore(database: database)
            records = SyncRecordStore(database: database)
        }

        @discardableResult
        func sync() throws -> SyncEngine.Round {
            try engine.synchronize(keychain, records: records, circles: circles)
        }
    }

    /// Keeps a copy of the table `table` of the sync schema as it is now; the function returned puts it back in
    /// place of what the table then holds (a server going back to an earlier copy).
    private func keepCopy(of table: String, on server: PostgresServer) throws -> () throws -> Void {
        let administrator = try server.connect()
        try administrator.execute("CREATE TABLE earlier_\(table) AS SELECT * FROM clavis_sync.\(table)")
        return {
            try administrator.executeScript(
                "DELETE FROM clavis_sync.\(table); INSERT INTO clavis_sync.\(table) SELECT * FROM earlier_\(table);")
        }
    }

    /// Adds `account`'s item on `writer`, deletes it, and has `reader` see both (a tombstone on each).
    private func addedThenDeleted(_ account: String, by writer: Device, seenBy reader: Device) throws {
        writer.keychain.set(account, secret: "deleted-later")
        try writer.sync()
        try reader.sync()
        writer.keychain.delete(account)
        try writer.sync()
        try reader.sync()
    }

    /// Three member devices of alice's circle, on a fresh server.
    private func threeDevices(_ server: PostgresServer) throws -> [Device] {
        try server.prepareSync(accounts: ["alice"])
        let store = SyncCircleStore(database: try server.connect(as: "alice"))
        let keys = try (0..<3).map { _ in try SyncDeviceKey.generate() }
        var (first, _) = try SyncMembership.createCircle(device: keys[0], name: "a", store: store)
        var memberships = [first]
        for (index, key) in keys.enumerated().dropFirst() {
            let request = try SyncMembership.requestJoin(device: key, name: "device \(index)", store: store)
            try first.approve(code: request.code, store: store)
            memberships.append(try #require(try SyncMembership.joined(device: key, request: request, store: store)))
        }
        memberships[0] = first
        return try memberships.map { try Device($0, server: server) }
    }

    @Test func addsUpdatesAndDeletesReachEveryDevice() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b, c) = (devices[0], devices[1], devices[2])

        a.keychain.set("mail", secret: "added-on-a")
        #expect(try a.sync() == SyncEngine.Round(applied: 0, sent: 1, kept: 0))
        #expect(try b.sync().applied == 1 && c.sync().applied == 1)
        #expect(b.keychain.secret("mail") == "added-on-a" && c.keychain.secret("mail") == "added-on-a")

        b.keychain.set("mail", secret: "updated-on-b")
        try b.sync()
        try a.sync()
        try c.sync()
        #expect(a.keychain.secret("mail") == "updated-on-b" && c.keychain.secret("mail") == "updated-on-b")

        c.keychain.delete("mail")
        try c.sync()
        try a.sync()
        try b.sync()
        #expect(a.keychain.items["mail"]?.isTombstone == true && b.keychain.items["mail"]?.isTombstone == true)
        // Nothing is left to do: a round sends and applies nothing.
        for device in devices { #expect(try device.sync() == SyncEngine.Round()) }
    }

    @Test func theNewestChangeWinsAConflictOnEveryDevice() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        a.keychain.set("vpn", secret: "first")
        try a.sync()
        try b.sync()
        // Both change it before syncing; b's change is the newer.
        a.keychain.set("vpn", secret: "older-change-on-a", at: 2_000_000_000_000)
        b.keychain.set("vpn", secret: "newer-change-on-b", at: 2_000_000_000_500)
        try a.sync()
        let round = try b.sync()
        #expect(round.kept == 1, "b keeps its newer change and sends it")
        try a.sync()
        #expect(a.keychain.secret("vpn") == "newer-change-on-b" && b.keychain.secret("vpn") == "newer-change-on-b")

        // At the same time, the greater device identifier wins, on both.
        a.keychain.set("vpn", secret: "tie-from-a", at: 3_000_000_000_000)
        b.keychain.set("vpn", secret: "tie-from-b", at: 3_000_000_000_000)
        try a.sync()
        try b.sync()
        try a.sync()
        let winner =
            a.engine.membership.device.identifier.lexicographicallyPrecedes(b.engine.membership.device.identifier)
            ? "tie-from-b" : "tie-from-a"
        #expect(a.keychain.secret("vpn") == winner && b.keychain.secret("vpn") == winner)
    }

    @Test func changesMadeWhileTheServerIsAwayGoOutWhenItReturns() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        try server.stop()
        a.keychain.set("offline-1", secret: "written-offline")
        a.keychain.set("offline-2", secret: "also-offline")
        let away = #expect(throws: KeychainError.self) { try a.sync() }
        #expect(away?.code == .notAvailable)
        try server.start()
        try a.reconnect(server)
        try b.reconnect(server)
        #expect(try a.sync().sent == 2)
        try b.sync()
        #expect(b.keychain.secret("offline-1") == "written-offline" && b.keychain.secret("offline-2") == "also-offline")
    }

    @Test func aRecordTheServerChangedStopsTheRoundUnapplied() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        a.keychain.set("mail", secret: "genuine")
        try a.sync()
        try server.connect().execute(
            "UPDATE clavis_sync.records SET ciphertext = ciphertext || '\\x00'::bytea, change = nextval('clavis_sync.changes')"
        )
        let refused = #expect(throws: KeychainError.self) { try b.sync() }
        #expect(refused?.code == .verifyFailed)
        #expect(b.keychain.items.isEmpty)
        // It stays refused on the next round too.
        #expect(throws: KeychainError.self) { try b.sync() }
    }

    @Test func aServerThatDropsOrRollsBackWhatADeviceWroteIsCaught() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        a.keychain.set("mail", secret: "first")
        try a.sync()
        try b.sync()
        let putBack = try keepCopy(of: "records", on: server)
        a.keychain.set("mail", secret: "second")
        a.keychain.set("bank", secret: "newest")
        try a.sync()
        // The server goes back to its earlier copy: every device, the writer included, refuses to go on.
        try putBack()
        for device in [a, b] {
            let refused = #expect(throws: KeychainError.self) { try device.sync() }
            #expect(refused?.code == .verifyFailed)
            #expect(refused?.reason.contains("no longer holds version 1 of the last record device 'a' wrote") == true)
        }
        #expect(b.keychain.secret("mail") == "first" && b.keychain.secret("bank") == nil)
    }

    @Test func anOlderHighWaterMarkPutBackIsCaught() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        a.keychain.set("mail", secret: "first")
        try a.sync()
        try b.sync()
        let putBack = try keepCopy(of: "high_water_marks", on: server)
        a.keychain.set("mail", secret: "second")
        try a.sync()
        try b.sync()
        #expect(b.keychain.secret("mail") == "second")
        // The server puts A's first mark back, hiding that A wrote since: B has seen the newer one.
        try putBack()
        let refused = #expect(throws: KeychainError.self) { try b.sync() }
        #expect(refused?.code == .verifyFailed)
        #expect(refused?.reason.contains("older high-water mark of device 'a'") == true)
    }

    @Test func aChangeThatCouldNotBeAppliedIsReadAgain() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        a.keychain.set("mail", secret: "arrives-while-locked")
        try a.sync()
        b.keychain.isLocked = true
        let locked = #expect(throws: KeychainError.self) { try b.sync() }
        #expect(locked?.code == .interactionNotAllowed)
        b.keychain.isLocked = false
        #expect(try b.sync().applied == 1)
        #expect(b.keychain.secret("mail") == "arrives-while-locked")
    }

    @Test func aDeviceAwayForLongCatchesUpPageByPage() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        // More changes than one page of the store holds (500).
        for index in 0..<620 { a.keychain.set("item-\(index)", secret: "secret-\(index)") }
        #expect(try a.sync().sent == 620)
        #expect(try b.sync().applied == 620)
        #expect(b.keychain.items.count == 620 && b.keychain.secret("item-619") == "secret-619")
        #expect(try b.sync() == SyncEngine.Round())
    }

    @Test func aChangeThisKeychainRefusesForGoodHoldsBackNoOther() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        a.keychain.set("from-a-newer-build", secret: "unreadable-here")
        a.keychain.set("ordinary", secret: "arrives")
        try a.sync()
        b.keychain.refusedAccounts = ["from-a-newer-build"]
        #expect(try b.sync() == SyncEngine.Round(applied: 1, refused: 1))
        #expect(b.keychain.secret("ordinary") == "arrives" && b.keychain.secret("from-a-newer-build") == nil)
        // Passed over for good: the next round does not try it again.
        #expect(try b.sync() == SyncEngine.Round())
    }

    @Test func aLocalItemThatLostToARefusedChangeIsNotSentOverIt() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b) = (devices[0], devices[1])
        // B changed the item first; A, later, with something B's keychain cannot hold (a newer build's item).
        b.keychain.set("shared", secret: "older-on-b", at: 1_000)
        a.keychain.set("shared", secret: "newer-from-a", at: 2_000)
        try a.sync()
        b.keychain.refusedAccounts = ["shared"]
        #expect(try b.sync() == SyncEngine.Round(refused: 1))
        // B keeps its own copy, and A's newer one is not overwritten by it.
        try a.sync()
        #expect(a.keychain.secret("shared") == "newer-from-a" && b.keychain.secret("shared") == "older-on-b")
    }

    @Test func aDeleteIsRememberedForNinetyDaysThenLeavesTheServer() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b, c) = (devices[0], devices[1], devices[2])
        try addedThenDeleted("old", by: a, seenBy: b)
        #expect(b.keychain.items["old"]?.isTombstone == true)
        #expect(try a.records.changes(after: 0).count == 1, "the tombstone's record")
        // Ninety days and a minute later, the first device to read the tombstone removes it, and none sends it.
        let later = a.keychain.clock + SyncEngine.tombstoneLifetime + 60_000
        c.engine.now = { later }
        #expect(try c.sync() == SyncEngine.Round(applied: 1))
        #expect(try a.records.changes(after: 0).isEmpty)
        a.engine.now = { later }
        b.engine.now = { later }
        #expect(try a.sync() == SyncEngine.Round() && b.sync() == SyncEngine.Round())
        #expect(try a.records.changes(after: 0).isEmpty)
    }

    @Test func anItemBeginsAgainAfterItsDeleteExpired() throws {
        let server = try PostgresServer()
        let devices = try threeDevices(server)
        let (a, b, c) = (devices[0], devices[1], devices[2])
        try addedThenDeleted("renewed", by: a, seenBy: b)
        // Ninety days on, C removes the expired delete from the server (A and B saw its record, at version 2).
        let later = a.keychain.clock + SyncEngine.tombstoneLifetime + 60_000
        for device in [a, b, c] { device.engine.now = { later } }
        try c.sync()
        #expect(try a.records.changes(after: 0).isEmpty)
        // B makes the item again: version 1 of a record the server no longer has, which A takes as new.
        b.keychain.set("renewed", secret: "second-life", at: later)
        #expect(try b.sync().sent == 1)
        #expect(try a.sync().applied == 1)
        #expect(a.keychain.secret("renewed") == "second-life")
        // And A, which knew version 2, changes it again on top of the new life.
        a.keychain.set("renewed", secret: "third-life", at: later + 1_000)
        #expect(try a.sync().sent == 1)
        #expect(try b.sync().applied == 1)
        #expect(b.keychain.secret("renewed") == "third-life")
    }
}
