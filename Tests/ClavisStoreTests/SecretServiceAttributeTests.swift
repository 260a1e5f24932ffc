import ClavisCore
import ClavisSQLite
import FoundationEssentials
import Testing

@testable import ClavisStore

/// A Secret Service item's free-form attributes (`ssat`): sealed with the item, each pair filed under a keyed digest,
/// so a search by pairs reaches the items holding all of them without decrypting any other.
@Suite struct SecretServiceAttributeTests {
    let temporary = TemporaryHome()

    /// A Secret Service item of the collection `login` with id `id` and these attributes.
    private func item(_ id: String, _ pairs: [String: String], secret: String = "s3cret") -> NewItem {
        password(
            account: id, service: "login", secret: secret,
            [.secretServiceAttributes: .data(SecretServiceAttributes(pairs).encoded)])
    }

    private func search(_ pairs: [String: String]) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, secretServiceAttributes: pairs)
    }

    @Test func aSearchFindsTheItemsHoldingEveryPairAndComparesExactly() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(item("1", ["service": "smtp", "user": "anna"])).resultOrThrow()
        _ = try keychain.add(item("2", ["service": "smtp", "user": "ben"])).resultOrThrow()
        _ = try keychain.add(item("3", ["service": "imap", "user": "anna"])).resultOrThrow()
        _ = try keychain.add(password(account: "plain", service: "login")).resultOrThrow()
        func accounts(_ pairs: [String: String]) throws -> [String] {
            try keychain.find(search(pairs)).resultOrThrow().compactMap { $0.attributes[.account]?.stringValue }
        }
        #expect(try accounts(["service": "smtp"]) == ["1", "2"])
        #expect(try accounts(["service": "smtp", "user": "anna"]) == ["1"])
        #expect(try accounts(["user": "anna"]) == ["1", "3"])
        #expect(try accounts(["service": "SMTP"]).isEmpty)
        #expect(try accounts(["service": "smtp", "host": "x"]).isEmpty)
        // A pair's form cannot be forged by moving the separator between name and value.
        #expect(try accounts(["service=smtp": ""]).isEmpty)
        #expect(try accounts([:]).count == 4)
        let found = try #require(try keychain.find(search(["user": "ben"])).resultOrThrow().first)
        guard case .data(let encoded) = found.attributes[.secretServiceAttributes] else {
            Issue.record("no ssat attribute read back")
            return
        }
        #expect(SecretServiceAttributes(encoded: encoded)?.pairs == ["service": "smtp", "user": "ben"])
    }

    @Test func aSearchStartsFromOnePairsEntriesAndDecryptsNoOtherItem() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(item("wanted", ["service": "smtp", "user": "anna"], secret: "found")).resultOrThrow()
        for index in 0..<5 {
            _ = try keychain.add(item("other-\(index)", ["service": "smtp", "user": "user-\(index)"])).resultOrThrow()
        }
        let plan = try keychain.explain(search(["service": "smtp", "user": "anna"]))
        #expect(
            plan.contains { $0.contains("SEARCH items_secret_service_attribute USING PRIMARY KEY (digest=?)") },
            "plan: \(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "plan: \(plan)")
        // The items holding both pairs are found in the lookup table alone; `items` is read by row id only.
        #expect(plan.contains("SEARCH items USING INTEGER PRIMARY KEY (rowid=?)"), "plan: \(plan)")
        // Every other item's sealed attributes damaged: a search that decrypted any of them would fail.
        let inspector = try StoreInspector(temporary.home)
        for id in try inspector.itemIDs().dropFirst() {
            var bytes = try inspector.blob("attributes", id: id)
            bytes[0] ^= 0x01
            try inspector.setBlob("attributes", id: id, bytes)
        }
        var lookup = search(["service": "smtp", "user": "anna"])
        lookup.returnsSecret = true
        #expect(try keychain.find(lookup).resultOrThrow().map { $0.secret?.string } == ["found"])
    }

    @Test func entriesFollowUpdatesAndDeletesAndNoPairIsStoredInClear() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(item("1", ["service": "PAIR-MARKER-SERVICE", "user": "PAIR-MARKER-USER"])).resultOrThrow()
        _ = try keychain.add(item("2", ["service": "PAIR-MARKER-SERVICE"])).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        func entryCount() throws -> Int64? {
            try inspector.connection.scalar("SELECT count(*) FROM items_secret_service_attribute")?.integer
        }
        #expect(try entryCount() == 3)
        let changed = try keychain.update(
            search(["user": "PAIR-MARKER-USER"]),
            with: ItemChanges(attributes: [
                .secretServiceAttributes: .data(SecretServiceAttributes(["user": "renamed"]).encoded)
            ])
        ).resultOrThrow()
        #expect(changed == 1)
        #expect(try entryCount() == 2)
        #expect(try keychain.find(search(["user": "PAIR-MARKER-USER"])).resultOrThrow().isEmpty)
        #expect(try keychain.find(search(["user": "renamed"])).resultOrThrow().count == 1)
        #expect(try keychain.delete(search(["service": "PAIR-MARKER-SERVICE"])).resultOrThrow() == 1)
        #expect(try entryCount() == 1)
        for marker in ["PAIR-MARKER-SERVICE", "PAIR-MARKER-USER"] {
            for file in ["keychain.db", "keychain.db-wal"].map(temporary.contents(of:)) {
                #expect(!file.containsBytes(Array(marker.utf8)), "\(marker) found in clear")
            }
        }
    }

    @Test func malformedAttributesAreRefusedAndNothingIsWritten() throws {
        let keychain = try temporary.open()
        for bytes in [Data(), Data([1]), Data([1, 0, 0, 0, 2, 0, 0, 0, 1, 0x61]), Data([9, 0, 0, 0, 0])] {
            let bad = password(account: "bad", service: "login", [.secretServiceAttributes: .data(bytes)])
            #expect(status { try keychain.add(bad).resultOrThrow() } == .param)
        }
        var twice = SecretServiceAttributes(["a": "1"]).encoded
        twice.append(contentsOf: twice.dropFirst(5))
        twice[4] = 2
        #expect(SecretServiceAttributes(encoded: twice) == nil)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().isEmpty)
    }

    @Test func aVersionFourKeychainGainsThePairLookups() throws {
        _ = try temporary.open().add(password(account: "alice", secret: "secret-alice")).resultOrThrow()
        try StoreInspector(temporary.home).connection.executeScript(
            """
            DROP TABLE items_secret_service_attribute;
            DELETE FROM schema_version WHERE version >= 5;
            """)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        #expect(
            try inspector.connection.scalar("SELECT MAX(version) FROM schema_version")?.integer
                == Int64(Schema.migrator.latestVersion))
        _ = try keychain.add(item("1", ["service": "smtp"])).resultOrThrow()
        #expect(try keychain.find(search(["service": "smtp"])).resultOrThrow().count == 1)
        #expect(try keychain.find(query(account: "alice")).resultOrThrow().first?.secret?.string == "secret-alice")
    }
}
