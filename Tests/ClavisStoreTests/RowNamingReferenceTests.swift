import ClavisCore
import ClavisSQLite
import FoundationEssentials
import Testing

@testable import ClavisStore

/// Persistent references: a new row's names its row (its row id, then random bytes) and is found by row id with no
/// index entry; one that does not name its row (written before schema version 7, or sealed under an application
/// password) is found through `items_reference`.
@Suite struct RowNamingReferenceTests {
    let temporary = TemporaryHome()

    /// The rows `items_reference` holds: those whose reference does not name them.
    private func indexedRows(_ inspector: StoreInspector) throws -> Int64? {
        try inspector.connection.scalar("SELECT count(*) FROM items WHERE \(Schema.referenceNotNamingRow)")?.integer
    }

    private func byReference(_ item: Item) -> ItemQuery {
        ItemQuery(itemClass: item.itemClass, persistentReference: item.persistentReference, returnsSecret: true)
    }

    @Test func aNewItemsReferenceNamesItsRowAndIsFoundByRowIDAlone() throws {
        let keychain = try temporary.open()
        let first = try keychain.add(password(account: "a", secret: "first")).resultOrThrow()
        let second = try keychain.add(password(account: "b", secret: "second")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let ids = try inspector.itemIDs()
        #expect(ids.count == 2)
        for (item, id) in zip([first, second], ids) {
            #expect(item.persistentReference.bytes.count == PersistentReference.byteCount)
            #expect(Array(item.persistentReference.bytes.prefix(4)) == Array("genp".utf8))
            let stored = Array(item.persistentReference.bytes.dropFirst(4))
            #expect(PersistentReference.namedRow(stored) == id)
            #expect(try inspector.blob("reference", id: id) == stored)
        }
        #expect(try keychain.find(byReference(second)).resultOrThrow().first?.secret?.string == "second")
        #expect(try indexedRows(inspector) == 0)
        let plan = try keychain.explain(byReference(first))
        #expect(plan.contains { $0.contains("INTEGER PRIMARY KEY") }, "\(plan)")
        #expect(plan.contains { $0.contains("items_reference") }, "\(plan)")
    }

    @Test func aDeletedItemsReferenceFindsNothingOnceANewItemTakesItsRowID() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        let deleted = try keychain.add(password(account: "b", secret: "gone")).resultOrThrow()
        #expect(try keychain.delete(query(account: "b")).resultOrThrow() == 1)
        let next = try keychain.add(password(account: "c", secret: "new")).resultOrThrow()
        // SQLite's rule, kept: the next row takes one past the largest id, which the deleted row had.
        #expect(next.persistentReference.bytes.prefix(12) == deleted.persistentReference.bytes.prefix(12))
        #expect(next.persistentReference != deleted.persistentReference)
        #expect(try keychain.find(byReference(deleted)).resultOrThrow().isEmpty)
        #expect(try keychain.find(byReference(next)).resultOrThrow().first?.secret?.string == "new")
    }

    @Test func aReferenceAlteredInItsRandomHalfOrNamingAnotherClassFindsNothing() throws {
        let keychain = try temporary.open()
        let stored = try keychain.add(password(account: "a")).resultOrThrow()
        var altered = stored.persistentReference.bytes
        altered[altered.count - 1] ^= 1
        let alteredQuery = ItemQuery(
            itemClass: .genericPassword, persistentReference: PersistentReference(bytes: altered))
        #expect(try keychain.find(alteredQuery).resultOrThrow().isEmpty)
        let asInternet = ItemQuery(itemClass: .internetPassword, persistentReference: stored.persistentReference)
        #expect(try keychain.find(asInternet).resultOrThrow().isEmpty)
        // Row ids no row can have: zero, and one past what 63 bits hold.
        for prefix: [UInt8] in [Array(repeating: 0, count: 8), [0x80] + Array(repeating: 0, count: 7)] {
            let bytes = Array("genp".utf8) + prefix + Array(repeating: 7, count: 8)
            let impossible = ItemQuery(
                itemClass: .genericPassword, persistentReference: PersistentReference(bytes: bytes))
            #expect(try keychain.find(impossible).resultOrThrow().isEmpty)
        }
    }

    @Test func anItemSealedUnderAnApplicationPasswordKeepsARandomReferenceFoundThroughTheIndex() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .applicationPassword)
        var item = password(
            account: "guarded", secret: "sealed twice",
            [
                .accessible: .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue),
                .accessControl: .data(policy.encoded),
            ])
        item.authentication = AuthenticationProof(applicationPassword: "pw".secret)
        let stored = try keychain.add(item).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        #expect(PersistentReference.namedRow(Array(stored.persistentReference.bytes.dropFirst(4))) != id)
        #expect(try indexedRows(inspector) == 1)
        var lookup = byReference(stored)
        lookup.authentication = AuthenticationProof(applicationPassword: "pw".secret)
        #expect(try keychain.find(lookup).resultOrThrow().first?.secret?.string == "sealed twice")
    }

    @Test func aMigratedKeychainsReferencesStayInTheIndexAndItsNewItemsTakeNone() throws {
        try VersionFiveKeychain.write(to: temporary.home)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        let rows = try #require(try inspector.connection.scalar("SELECT count(*) FROM items")?.integer)
        #expect(rows > 0)
        #expect(try indexedRows(inspector) == rows)
        let every = ItemQuery(itemClass: .genericPassword, synchronizable: .any, limit: .all)
        let migrated = try keychain.find(every).resultOrThrow()
        #expect(!migrated.isEmpty)
        for item in migrated {
            var lookup = byReference(item)
            lookup.synchronizable = .any
            #expect(
                try keychain.find(lookup).resultOrThrow().first?.attributes[.account] == item.attributes[.account])
        }
        let added = try keychain.add(password(account: "new", secret: "after")).resultOrThrow()
        #expect(try keychain.find(byReference(added)).resultOrThrow().first?.secret?.string == "after")
        #expect(try indexedRows(inspector) == rows)
    }

    @Test func aTombstonesReferenceNamesItsOwnRow() throws {
        let keychain = try temporary.open()
        let synchronizable = try keychain.add(password(account: "s", [.synchronizable: .bool(true)])).resultOrThrow()
        var deletion = query(account: "s", returnsSecret: false)
        deletion.synchronizable = .yes
        #expect(try keychain.delete(deletion).resultOrThrow() == 1)
        let inspector = try StoreInspector(temporary.home)
        #expect(try inspector.tombstoneCount() == 1)
        let tombstone = try #require(
            try inspector.connection.rows("SELECT id, reference FROM items WHERE tombstone = 1").first)
        let stored = try #require(tombstone[1].blob)
        #expect(PersistentReference.namedRow(stored) == tombstone[0].integer)
        #expect(stored != Array(synchronizable.persistentReference.bytes.dropFirst(4)))
        #expect(try indexedRows(inspector) == 0)
    }
}
