import ClavisCore
import ClavisCrypto
import ClavisEmbedded
import ClavisStore
import ClavisSync
import ClavisTestSupport
import Foundation
import Testing

/// Real keychains syncing through a real PostgreSQL: what each device's keychain files hold after its rounds, with
/// the engine reading and applying through `KeychainSyncItems`.
@Suite(.serialized) struct KeychainSyncTests {
    /// A device: a keychain in a folder of its own and its engine.
    final class Device {
        let folder: String
        let keychain: Keychain
        var engine: SyncEngine
        let records: SyncRecordStore
        let circles: SyncCircleStore

        init(_ membership: SyncMembership, server: PostgresServer) throws {
            folder = FileManager.default.temporaryDirectory.appending(path: "clavis-sync-\(UUID().uuidString)").path
            keychain = try Keychain(home: KeychainHome(path: folder))
            engine = SyncEngine(membership: membership)
            let database = try server.connect(as: "alice")
            records = SyncRecordStore(database: database)
            circles = SyncCircleStore(database: database)
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        @discardableResult
        func sync() throws -> SyncEngine.Round {
            try engine.synchronize(KeychainSyncItems(keychain: keychain), records: records, circles: circles)
        }

        func add(_ account: String, secret: String, protection: ProtectionClass = .whenUnlocked, sync: Bool = true)
            throws
        {
            _ = try keychain.add(
                NewItem(
                    itemClass: .genericPassword,
                    attributes: [
                        .account: .string(account), .service: .string("sync.example.org"),
                        .accessGroup: .string("TEAM.app"), .accessible: .string(protection.rawValue),
                        .synchronizable: .bool(sync),
                    ],
                    secret: SecureBytes(Array(secret.utf8)))
            ).resultOrThrow()
        }

        /// The secret of `account`'s item, whichever its `sync`; `nil` when there is none.
        func secret(_ account: String) throws -> String? {
            let found = try keychain.find(
                ItemQuery(
                    itemClass: .genericPassword, attributes: [.account: .string(account)], synchronizable: .any,
                    returnsSecret: true)
            ).resultOrThrow()
            return found.first?.secret.map { String(decoding: $0.unprotectedBytes(), as: UTF8.self) }
        }
    }

    private func devices(_ count: Int, server: PostgresServer) throws -> [Device] {
        try server.prepareSync(accounts: ["alice"])
        let store = SyncCircleStore(database: try server.connect(as: "alice"))
        var (first, _) = try SyncMembership.createCircle(device: try SyncDeviceKey.generate(), name: "a", store: store)
        var memberships: [SyncMembership] = []
        for index in 1..<count {
            let key = try SyncDeviceKey.generate()
            let request = try SyncMembership.requestJoin(device: key, name: "device \(index)", store: store)
            try first.approve(code: request.code, store: store)
            memberships.append(try #require(try SyncMembership.joined(device: key, request: request, store: store)))
        }
        return try ([first] + memberships).map { try Device($0, server: server) }
    }

    @Test func aKeyHeldHereInARowThatStaysIsNeitherSentNorReplaced() throws {
        let server = try PostgresServer()
        let devices = try devices(2, server: server)
        let (a, b) = (devices[0], devices[1])
        // Both hold "same" (same account, service and group, sync set); on b it is ThisDeviceOnly.
        try a.add("same", secret: "from-a")
        try b.add("same", secret: "only-on-b", protection: .whenUnlockedThisDeviceOnly)
        try a.sync()
        #expect(try b.sync().applied == 0 || b.secret("same") == "only-on-b")
        #expect(try b.secret("same") == "only-on-b")
        #expect(try a.secret("same") == "from-a")
        // A change whose dates are not times is refused, whatever device sent it.
        var item = try #require(try a.keychain.synchronizedItems().first)
        item.attributes[.modificationDate] = .date(Date(timeIntervalSince1970: .nan))
        let refused = #expect(throws: KeychainError.self) {
            _ = try b.keychain.storeSynchronized(item, secret: item.secret)
        }
        #expect(refused?.code == .param)
    }

    @Test func changesAppliedTogetherStopAtOneALockedKeychainCannotOpenAndGoOnAfterTheUnlock() throws {
        let server = try PostgresServer()
        let devices = try devices(2, server: server)
        let (a, b) = (devices[0], devices[1])
        try a.add("first", secret: "one", protection: .afterFirstUnlock)
        try a.add("locked-away", secret: "two", protection: .whenUnlocked)
        try a.add("third", secret: "three", protection: .afterFirstUnlock)
        #expect(try a.sync().sent == 3)
        let passcode = SecureBytes(Array("2468".utf8))
        try b.keychain.setPasscode(passcode, current: nil, kdf: .cheapForTesting())
        b.keychain.lock()
        let stopped = #expect(throws: KeychainError.self) { try b.sync() }
        #expect(stopped?.code == .interactionNotAllowed)
        // What came before the locked class's change is kept; nothing after it is applied out of order.
        #expect(try b.secret("first") == "one" && b.secret("third") == nil)
        try b.keychain.unlock(passcode: passcode)
        #expect(try b.sync().applied == 2)
        #expect(try b.secret("locked-away") == "two" && b.secret("third") == "three")
    }

    @Test func aKeychainLetsGoOfDeletesOlderThanSyncKeepsThem() throws {
        let server = try PostgresServer()
        let device = try devices(1, server: server)[0]
        try device.add("deleted", secret: "gone", protection: .afterFirstUnlock)
        try device.add("kept", secret: "here", protection: .afterFirstUnlock)
        _ = try device.keychain.delete(
            ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("deleted")], synchronizable: .any)
        ).resultOrThrow()
        let tombstones = { try device.keychain.synchronizedItems().filter { $0.secret == nil }.count }
        #expect(try tombstones() == 1)
        // A delete younger than the cutoff stays; one older goes, and nothing else with it.
        #expect(try device.keychain.removeSynchronizedTombstones(deletedBefore: Date(timeIntervalSinceNow: -3600)) == 0)
        #expect(try device.keychain.removeSynchronizedTombstones(deletedBefore: Date(timeIntervalSinceNow: 60)) == 1)
        #expect(try tombstones() == 0)
        #expect(try device.secret("kept") == "here")
    }

    @Test func aServerNamedWithAPasswordIsRefusedBeforeAnyConnection() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "clavis-sync-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let synchronizer = KeychainSynchronizer(
            keychain: try Keychain(home: KeychainHome(path: folder)), runsInBackground: false)
        for server in ["host=db user=alice password=hunter2", "postgresql://alice:hunter2@db/clavis"] {
            let refused = #expect(throws: KeychainError.self) {
                try synchronizer.perform(.enable(server: server, deviceName: "laptop"))
            }
            #expect(refused?.code == .param && refused?.reason.contains("hunter2") == false)
        }
        #expect(try synchronizer.perform(.status).state == .off)
    }

    @Test func aChangeFromAnotherDeviceNeverReplacesANewerOneMadeHere() throws {
        let server = try PostgresServer()
        let device = try devices(1, server: server)[0]
        // Written here just now (as a client may while a round is under way).
        try device.add("raced", secret: "written-here", protection: .afterFirstUnlock)
        func remote(_ secret: String, modified: Date) -> Item {
            Item(
                itemClass: .genericPassword,
                attributes: [
                    .account: .string("raced"), .service: .string("sync.example.org"),
                    .accessGroup: .string("TEAM.app"), .synchronizable: .bool(true),
                    .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue), .modificationDate: .date(modified),
                ],
                secret: SecureBytes(Array(secret.utf8)), persistentReference: PersistentReference(bytes: []))
        }
        let older = remote("from-an-hour-ago", modified: Date(timeIntervalSinceNow: -3600))
        _ = try device.keychain.storeSynchronized(older, secret: older.secret)
        #expect(try device.secret("raced") == "written-here")
        let newer = remote("from-a-minute-on", modified: Date(timeIntervalSinceNow: 60))
        _ = try device.keychain.storeSynchronized(newer, secret: newer.secret)
        #expect(try device.secret("raced") == "from-a-minute-on")
    }

    @Test func itemsAddedUpdatedAndDeletedReachEveryKeychainAndLocalOnesStay() throws {
        let server = try PostgresServer()
        let devices = try devices(3, server: server)
        let (a, b, c) = (devices[0], devices[1], devices[2])
        try a.add("shared", secret: "added-on-a")
        try a.add("this-device-only", secret: "stays-on-a", protection: .whenUnlockedThisDeviceOnly)
        try a.add("not-synchronizable", secret: "also-stays-on-a", sync: false)
        // An item with an access control stays on the device whose authentication it asks for.
        _ = try a.keychain.add(
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .account: .string("access-controlled"), .service: .string("sync.example.org"),
                    .accessGroup: .string("TEAM.app"), .accessible: .string(ProtectionClass.whenUnlocked.rawValue),
                    .synchronizable: .bool(true),
                    .accessControl: .data(AccessControl(protection: .whenUnlocked, flags: []).encoded),
                ],
                secret: SecureBytes(Array("guarded".utf8)))
        ).resultOrThrow()
        #expect(try a.sync().sent == 1)
        #expect(try b.sync() == SyncEngine.Round(applied: 1), "applied, and nothing sent back")
        try c.sync()
        #expect(try b.secret("shared") == "added-on-a" && c.secret("shared") == "added-on-a")
        #expect(try b.secret("this-device-only") == nil && b.secret("not-synchronizable") == nil)
        #expect(try b.secret("access-controlled") == nil)
        #expect(try c.secret("this-device-only") == nil && c.secret("not-synchronizable") == nil)

        // An update on b reaches a and c.
        let shared = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string("shared")], synchronizable: .yes)
        _ = try b.keychain.update(shared, with: ItemChanges(secret: SecureBytes(Array("updated-on-b".utf8))))
            .resultOrThrow()
        #expect(try b.sync().sent == 1)
        try a.sync()
        try c.sync()
        #expect(try a.secret("shared") == "updated-on-b" && c.secret("shared") == "updated-on-b")

        // A delete on c removes it everywhere.
        _ = try c.keychain.delete(shared).resultOrThrow()
        #expect(try c.sync().sent == 1)
        try a.sync()
        try b.sync()
        #expect(try a.secret("shared") == nil && b.secret("shared") == nil)
        // And the devices agree: no round has anything left to do.
        for device in devices { #expect(try device.sync() == SyncEngine.Round()) }
        #expect(try a.secret("this-device-only") == "stays-on-a")
    }
}

/// What a device keeps of its sync between runs, sealed in its keychain beside the items.
@Suite(.serialized) struct KeychainSyncStateTests {
    @Test func aDeviceResumesFromWhatItsKeychainKeepsAndNoQueryReachesIt() throws {
        let server = try PostgresServer()
        try server.prepareSync(accounts: ["alice"])
        let database = try server.connect(as: "alice")
        let circles = SyncCircleStore(database: database)
        let records = SyncRecordStore(database: database)
        let (membership, _) = try SyncMembership.createCircle(
            device: try SyncDeviceKey.generate(), name: "laptop", store: circles)
        let folder = FileManager.default.temporaryDirectory.appending(path: "clavis-sync-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var engine = SyncEngine(membership: membership)
        do {
            let keychain = try Keychain(home: KeychainHome(path: folder))
            _ = try keychain.add(
                NewItem(
                    itemClass: .genericPassword,
                    attributes: [
                        .account: .string("kept"), .accessGroup: .string("TEAM.app"), .synchronizable: .bool(true),
                        .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue),
                    ],
                    secret: SecureBytes(Array("resumed".utf8)))
            ).resultOrThrow()
            #expect(
                try engine.synchronize(KeychainSyncItems(keychain: keychain), records: records, circles: circles).sent
                    == 1)
            #expect(try KeychainSyncState(keychain: keychain).load() == nil)
            try KeychainSyncState(keychain: keychain).save(
                SyncDeviceRecord(
                    server: "host=sync.example dbname=clavis", phase: .member(engine.membership, state: engine.state)))
        }
        // The keychain opened again (the device restarted): the same membership and state, and nothing to resend.
        let keychain = try Keychain(home: KeychainHome(path: folder))
        let record = try #require(try KeychainSyncState(keychain: keychain).load())
        guard case .member(let loaded, let state) = record.phase else {
            Issue.record("the device is kept as joining")
            return
        }
        #expect(record.server == "host=sync.example dbname=clavis" && !record.paused)
        #expect(loaded.device.identifier == membership.device.identifier && loaded.circle == membership.circle)
        #expect(Set(loaded.keys.keys) == [1] && loaded.currentKeys?.commitment == membership.currentKeys?.commitment)
        #expect(state == engine.state && state.versions.count == 1 && state.agreed.count == 1)
        var resumed = SyncEngine(membership: loaded, state: state)
        #expect(
            try resumed.synchronize(KeychainSyncItems(keychain: keychain), records: records, circles: circles)
                == SyncEngine.Round())
        // No item query finds it, in any class or group: the one item is the password added above.
        for itemClass in [ItemClass.genericPassword, .internetPassword, .key, .certificate] {
            let found = try keychain.find(ItemQuery(itemClass: itemClass, synchronizable: .any, limit: .all))
                .resultOrThrow()
            #expect(found.count == (itemClass == .genericPassword ? 1 : 0))
        }
        // Its private keys are in no file in clear.
        let secretPart = Data(try loaded.encoded.withUnsafeBytes { Array($0) }[5..<37])
        for name in ["keychain.db", "keychain.db-wal"] {
            let file = (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))) ?? Data()
            #expect(file.range(of: secretPart) == nil, "\(name) holds the device's private key")
        }
        try KeychainSyncState(keychain: keychain).remove()
        #expect(try KeychainSyncState(keychain: keychain).load() == nil)
    }
}
