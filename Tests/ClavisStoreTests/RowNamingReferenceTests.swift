import ClavisCore
import ClavisSQLite
import FoundationEssentials
import Testing

@testable import ClavisStore

/// Persistent references: a new row's names its row (its row id, then random bytes) and is found by row id with no
/// index entry; one that does not name its row (written before schema version 7, or a row whose id changed) is found
/// through `items_reference`.
@Suite struct RowNamingReferenceTests {
    let temporary = TemporaryHome()

    /// The entries `items_reference` holds, counted by reading the index itself.
    private func indexEntries(_ inspector: StoreInspector) throws -> Int64? {
        try inspector.connection.scalar(
            "SELECT count(*) FROM items INDEXED BY items_reference WHERE \(Schema.referenceNotNamingRow)")?.integer
    }

    private func byReference(_ item: Item) -> ItemQuery {
        ItemQuery(itemClass: item.itemClass, persistentReference: item.persistentReference, returnsSecret: true)
    }

    private func storedReference(_ item: Item) -> [UInt8] {
        Array(item.persistentReference.bytes.dropFirst(PersistentReference.classCodeByteCount))
    }

    @Test func aNewItemsReferenceNamesItsRowAndTakesNoIndexEntry() throws {
        let keychain = try temporary.open()
        let first = try keychain.add(password(account: "a", secret: "first")).resultOrThrow()
        let batch = try keychain.add(
            contentsOf: [password(account: "b", secret: "second"), password(account: "c", secret: "third")]
        ).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let ids = try inspector.itemIDs()
        #expect(ids.count == 3)
        for (item, id) in zip([first] + batch, ids) {
            #expect(item.persistentReference.bytes.count == PersistentReference.byteCount)
            #expect(Array(item.persistentReference.bytes.prefix(4)) == Array("genp".utf8))
            #expect(PersistentReference.namedRow(storedReference(item)) == id)
            #expect(try inspector.blob("reference", id: id) == storedReference(item))
        }
        for (item, secret) in zip([first] + batch, ["first", "second", "third"]) {
            #expect(try keychain.find(byReference(item)).resultOrThrow().first?.secret?.string == secret)
        }
        #expect(try indexEntries(inspector) == 0)
        let definition = try inspector.connection.scalar(
            "SELECT sql FROM sqlite_master WHERE name = 'items_reference'")?.text
        #expect(definition?.hasSuffix("WHERE \(Schema.referenceNotNamingRow)") == true, "\(definition ?? "none")")
        let plan = try keychain.explain(byReference(first))
        #expect(plan.contains { $0.contains("INTEGER PRIMARY KEY") }, "\(plan)")
        #expect(plan.contains { $0.contains("items_reference") }, "\(plan)")
        #expect(try inspector.integrityCheck() == "ok")
    }

    @Test func anUpdatedItemKeepsItsReference() throws {
        let keychain = try temporary.open()
        let stored = try keychain.add(password(account: "a", secret: "v1")).resultOrThrow()
        let changed = try keychain.updateNamingItems(
            query(account: "a"), with: ItemChanges(attributes: [.label: .string("L")], secret: "v2".secret)
        ).resultOrThrow()
        #expect(changed == [stored.persistentReference])
        let found = try #require(try keychain.find(byReference(stored)).resultOrThrow().first)
        #expect(found.secret?.string == "v2")
        #expect(found.attributes[.label] == .string("L"))
    }

    @Test func aDeletedItemsReferenceFindsNothingOnceANewItemTakesItsRowID() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        let deleted = try keychain.add(password(account: "b", secret: "gone")).resultOrThrow()
        #expect(try keychain.delete(query(account: "b")).resultOrThrow() == 1)
        let next = try keychain.add(password(account: "c", secret: "new")).resultOrThrow()
        // SQLite's rule, kept: the next row takes one past the largest id, which the deleted row had.
        let reusedID = PersistentReference.namedRow(storedReference(deleted))
        #expect(PersistentReference.namedRow(storedReference(next)) == reusedID)
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
    }

    @Test func aRowWhoseIDChangedIsFoundThroughTheIndex() throws {
        let keychain = try temporary.open()
        let stored = try keychain.add(password(account: "a", secret: "moved")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        for table in AttributeSchema.withLookupTables.map(\.lookupTable) {
            try inspector.connection.execute("UPDATE \(table) SET item = 77 WHERE item = ?", [.integer(id)])
        }
        try inspector.set("id", id: id, .integer(77))
        #expect(try indexEntries(inspector) == 1)
        #expect(try keychain.find(byReference(stored)).resultOrThrow().first?.secret?.string == "moved")
    }

    @Test func anItemSealedUnderAnApplicationPasswordNamesItsRowToo() throws {
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
        #expect(PersistentReference.namedRow(storedReference(stored)) == (try inspector.itemIDs().first))
        #expect(try indexEntries(inspector) == 0)
        var lookup = byReference(stored)
        lookup.authentication = AuthenticationProof(applicationPassword: "pw".secret)
        #expect(try keychain.find(lookup).resultOrThrow().first?.secret?.string == "sealed twice")
        lookup.authentication = AuthenticationProof(applicationPassword: "wrong".secret)
        #expect(throws: KeychainError.self) { try keychain.find(lookup).resultOrThrow() }
    }

    @Test func aLockedItemIsNamedByItsReference() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("7391".secret, current: nil, kdf: .cheapForTesting())
        let stored = try keychain.add(password(account: "a")).resultOrThrow()
        _ = try keychain.add(password(account: "b")).resultOrThrow()
        keychain.lock()
        let named = ItemQuery(itemClass: .genericPassword, persistentReference: stored.persistentReference)
        #expect(try keychain.lockedReferences(named) == [stored.persistentReference])
    }

    @Test func aMigratedKeychainsReferencesStayInTheIndexAndItsNewItemsTakeNone() throws {
        try VersionFiveKeychain.write(to: temporary.home)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        let rows = try #require(try inspector.connection.scalar("SELECT count(*) FROM items")?.integer)
        #expect(rows > 0)
        #expect(try indexEntries(inspector) == rows)
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
        #expect(try indexEntries(inspector) == rows)
        #expect(try inspector.integrityCheck() == "ok")
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
        #expect(stored != storedReference(synchronizable))
        #expect(try indexEntries(inspector) == 0)
        #expect(try inspector.integrityCheck() == "ok")
    }
}
