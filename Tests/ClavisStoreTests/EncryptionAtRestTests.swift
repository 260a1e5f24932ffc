import ClavisCore
import ClavisSQLite
import ClavisStore
import FoundationEssentials
import Testing

@Suite struct EncryptionAtRestTests {
    let temporary = TemporaryHome()

    @Test func noSecretAccountServiceOrLabelAppearsInTheDatabaseFiles() throws {
        let keychain = try temporary.open()
        let markers = ["SECRET-MARKER-7f3a", "ACCOUNT-MARKER-19cd", "SERVICE-MARKER-a0b1", "LABEL-MARKER-5e5e"]
        for index in 0..<20 {
            _ = try keychain.add(
                password(
                    account: "\(markers[1])-\(index)", service: markers[2], secret: "\(markers[0])-\(index)",
                    [.label: .string(markers[3])])
            ).resultOrThrow()
        }
        _ = try keychain.update(
            ItemQuery(itemClass: .genericPassword, attributes: [.service: .string(markers[2])]),
            with: ItemChanges(attributes: [.comment: .string("COMMENT-MARKER")])
        ).resultOrThrow()
        let files = ["keychain.db", "keychain.db-wal"].map(temporary.contents(of:))
        #expect(files[0].count + files[1].count > 0)
        for marker in markers + ["COMMENT-MARKER"] {
            let needle = Array(marker.utf8)
            for file in files {
                #expect(!file.containsBytes(needle), "\(marker) found in clear")
            }
        }
    }

    @Test func alteringOneByteOfOneItemBreaksOnlyThatItem() throws {
        let keychain = try temporary.open()
        for name in ["a", "b", "c"] {
            _ = try keychain.add(password(account: name, secret: "secret-\(name)")).resultOrThrow()
        }
        let inspector = try StoreInspector(temporary.home)
        let ids = try inspector.itemIDs()
        for column in ["secret", "attributes", "wrapped_key"] {
            var bytes = try inspector.blob(column, id: ids[1])
            let original = bytes
            bytes[bytes.count / 2] ^= 0x01
            try inspector.setBlob(column, id: ids[1], bytes)
            let result = status { try keychain.find(query(account: "b")).resultOrThrow() }
            #expect(result == .decode, "altered \(column)")
            #expect(try keychain.find(query(account: "a")).resultOrThrow().first?.secret?.string == "secret-a")
            #expect(try keychain.find(query(account: "c")).resultOrThrow().first?.secret?.string == "secret-c")
            try inspector.setBlob(column, id: ids[1], original)
        }
        #expect(try keychain.find(query(account: "b")).resultOrThrow().first?.secret?.string == "secret-b")
    }

    /// The clear `sync` and `protection` columns are bound to the boxes (the attributes no longer hold `sync` and
    /// `pdmn`, which are read back from these columns): flipping either makes the item fail, not change.
    @Test func flippingAnItemsSyncOrProtectionColumnMakesItFailToDecrypt() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", secret: "secret-a")).resultOrThrow()
        _ = try keychain.add(
            password(account: "b", secret: "secret-b", [.synchronizable: .bool(true), .accessible: .string("ck")])
        ).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let ids = try inspector.itemIDs()
        let flips: [(id: Int64, account: String, column: String, flipped: DatabaseValue, original: DatabaseValue)] = [
            (ids[0], "a", "sync", .integer(1), .integer(0)), (ids[0], "a", "protection", .text("ck"), .text("ak")),
            (ids[1], "b", "sync", .integer(0), .integer(1)), (ids[1], "b", "protection", .text("ak"), .text("ck")),
        ]
        for flip in flips {
            var anySync = query(account: flip.account)
            anySync.synchronizable = .any
            try inspector.set(flip.column, id: flip.id, flip.flipped)
            #expect(
                status { try keychain.find(anySync).resultOrThrow() } == .decode,
                "\(flip.account): flipped \(flip.column)")
            try inspector.set(flip.column, id: flip.id, flip.original)
            let found = try keychain.find(anySync).resultOrThrow().first
            #expect(found?.secret?.string == "secret-\(flip.account)")
            #expect(found?.attributes[.synchronizable] == .bool(flip.account == "b"))
            #expect(found?.attributes[.accessible] == .string(flip.account == "b" ? "ck" : "ak"))
        }
    }

    @Test func aDamagedItemHidesNoOtherFromListingsAndCanBeDeletedByReference() throws {
        let keychain = try temporary.open()
        let damaged = try keychain.add(password(account: "a", secret: "secret-a")).resultOrThrow()
        _ = try keychain.add(password(account: "b", secret: "secret-b")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        var bytes = try inspector.blob("attributes", id: id)
        bytes[bytes.count - 1] ^= 0x80
        try inspector.setBlob("attributes", id: id, bytes)

        let listing = try keychain.find(ItemQuery(itemClass: .genericPassword, returnsSecret: true)).resultOrThrow()
        #expect(listing.map { $0.secret?.string } == ["secret-b"])
        #expect(status { try keychain.find(query(account: "a")).resultOrThrow() } == .decode)
        #expect(status { try keychain.delete(query(account: "a", returnsSecret: false)).resultOrThrow() } == .decode)
        let byReference = ItemQuery(itemClass: .genericPassword, persistentReference: damaged.persistentReference)
        #expect(try keychain.delete(byReference).resultOrThrow() == 1)
        _ = try keychain.add(password(account: "a", secret: "fresh")).resultOrThrow()
        #expect(try keychain.find(query(account: "a")).resultOrThrow().first?.secret?.string == "fresh")
    }

    @Test func swappingTwoItemsBlobsMakesBothFail() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", secret: "secret-a")).resultOrThrow()
        _ = try keychain.add(password(account: "b", secret: "secret-b")).resultOrThrow()
        _ = try keychain.add(password(account: "c", secret: "secret-c")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let ids = try inspector.itemIDs()
        for column in ["wrapped_key", "attributes", "secret"] {
            let first = try inspector.blob(column, id: ids[0])
            let second = try inspector.blob(column, id: ids[1])
            try inspector.setBlob(column, id: ids[0], second)
            try inspector.setBlob(column, id: ids[1], first)
        }
        #expect(status { try keychain.find(query(account: "a")).resultOrThrow() } == .decode)
        #expect(status { try keychain.find(query(account: "b")).resultOrThrow() } == .decode)
        #expect(try keychain.find(query(account: "c")).resultOrThrow().first?.secret?.string == "secret-c")
    }

    @Test func lookupsByPrimaryKeyAccountAndLabelUseAnIndex() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        let queries = [
            query(account: "a"),
            ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("a")]),
            ItemQuery(itemClass: .genericPassword, attributes: [.label: .string("l")]),
            ItemQuery(itemClass: .internetPassword, attributes: [.server: .string("example.com")]),
        ]
        for query in queries {
            let plan = try keychain.explain(query)
            // An index of `items`, or the key of a lookup table (a `WITHOUT ROWID` table is its own index).
            #expect(
                plan.contains { $0.contains("USING INDEX") || $0.contains("USING PRIMARY KEY (digest=?)") },
                "plan: \(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "plan: \(plan)")
        }
    }

    @Test func accountDrivesTheLookupOverAServiceManyItemsShare() throws {
        let keychain = try temporary.open()
        var lookup = query(account: "a")
        lookup.accessGroups = ["team.one"]
        lookup.attributes[.service] = nil
        let plan = try keychain.explain(lookup)
        // The account's entries are where the search starts; the service and group are checked per candidate.
        #expect(plan.contains { $0.contains("SEARCH items_account USING PRIMARY KEY (digest=?)") }, "plan: \(plan)")
        #expect(!plan.contains { $0.contains("items_access_group USING PRIMARY KEY (digest=?)") }, "plan: \(plan)")
        let withService = try keychain.explain(query(account: "a"))
        #expect(withService.contains { $0.contains("SEARCH items_account USING PRIMARY KEY (digest=?)") })
        #expect(withService.contains { $0.contains("SEARCH items_service USING PRIMARY KEY (digest=? AND item=?)") })
    }

    @Test func aPersistentReferenceDrivesTheLookupOverAServiceEveryItemShares() throws {
        let keychain = try temporary.open()
        var named: PersistentReference?
        for index in 0..<50 {
            let added = try keychain.add(password(account: "item-\(index)", service: "collection")).resultOrThrow()
            if index == 17 { named = added.persistentReference }
        }
        // As the Secret Service reads an item: its collection (the service of all 50) and its reference.
        let byReference = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("collection")],
            persistentReference: named, returnsSecret: true)
        let plan = try keychain.explain(byReference)
        #expect(!plan.contains { $0.contains("items_service USING PRIMARY KEY (digest=?)") }, "plan: \(plan)")
        #expect(plan.contains { $0.contains("items_service USING PRIMARY KEY (digest=? AND item=?)") }, "plan: \(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "plan: \(plan)")
        let found = try keychain.find(byReference).resultOrThrow()
        #expect(found.map { $0.attributes[.account]?.stringValue } == ["item-17"])
    }

    @Test func lookupEntriesFollowUpdatesAndDeletes() throws {
        let keychain = try temporary.open()
        for name in ["a", "b", "c"] {
            _ = try keychain.add(password(account: name, [.label: .string("label-\(name)")])).resultOrThrow()
        }
        _ = try keychain.update(
            query(account: "a", returnsSecret: false),
            with: ItemChanges(attributes: [.account: .string("a2"), .label: .string("renamed")])
        ).resultOrThrow()
        #expect(try keychain.delete(query(account: "b", returnsSecret: false)).resultOrThrow() == 1)
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().last)
        var bytes = try inspector.blob("attributes", id: id)
        bytes[0] ^= 0x01
        try inspector.setBlob("attributes", id: id, bytes)
        let damaged = ItemQuery(itemClass: .genericPassword, attributes: [.label: .string("label-c")])
        let reference = try inspector.connection.scalar("SELECT reference FROM items WHERE id = ?", [.integer(id)])
        let persistentReference = PersistentReference(bytes: Array("genp".utf8) + (reference?.blob ?? []))
        #expect(status { try keychain.find(damaged).resultOrThrow() } == .decode)
        let byReference = ItemQuery(itemClass: .genericPassword, persistentReference: persistentReference)
        #expect(try keychain.delete(byReference).resultOrThrow() == 1)
        for table in ["items_access_group", "items_account", "items_service", "items_label"] {
            #expect(try inspector.connection.scalar("SELECT count(*) FROM \(table)")?.integer == 1, "\(table)")
        }
        #expect(
            try keychain.find(ItemQuery(itemClass: .genericPassword, attributes: [.label: .string("renamed")]))
                .resultOrThrow().count
                == 1)
        #expect(try keychain.find(query(account: "a")).resultOrThrow().isEmpty)
        #expect(try keychain.find(query(account: "a2")).resultOrThrow().first?.secret?.string == "s3cret")
    }

    @Test func fullPrimaryKeyWithKnownGroupsUsesThePrimaryKeyIndex() throws {
        let keychain = try temporary.open()
        var lookup = query(account: "a")
        lookup.accessGroups = ["team.one", "team.two"]
        lookup.synchronizable = .any
        let plan = try keychain.explain(lookup)
        #expect(plan.contains { $0.contains("items_primary_key") }, "plan: \(plan)")
    }

    @Test func filesAreReadableOnlyByTheirOwner() throws {
        _ = try temporary.open()
        #expect(try mode(of: temporary.home.path) == 0o700)
        #expect(try mode(of: temporary.home.deviceKeyPath) == 0o600)
        #expect(try mode(of: temporary.home.databasePath) == 0o600)
        #expect(temporary.contents(of: "device.key").count == 32)
    }

    @Test func filesOthersCouldReadAreNarrowedToTheirOwnerOnOpen() throws {
        _ = try temporary.open()
        for (path, mode) in [
            (temporary.home.path, 0o755), (temporary.home.databasePath, 0o644), (temporary.home.deviceKeyPath, 0o644),
        ] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
        _ = try temporary.open()
        #expect(try mode(of: temporary.home.path) == 0o700)
        #expect(try mode(of: temporary.home.databasePath) == 0o600)
        #expect(try mode(of: temporary.home.deviceKeyPath) == 0o600)
    }

    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }
}
