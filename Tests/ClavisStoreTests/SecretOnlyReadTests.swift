import ClavisCore
import ClavisCrypto
import ClavisSQLite
import ClavisStore
import FoundationEssentials
import Testing

/// A read by whole primary key whose caller takes only the secret (`returnsAttributes` false) opens the secret box
/// alone, for items sealed with their primary-key digest and without an access control: what the box binds stands
/// in for the attributes it skips.
@Suite struct SecretOnlyReadTests {
    let temporary = TemporaryHome()

    /// The whole primary key of a test password in the group every test item is stored in (none given: "").
    private func secretOnly(_ account: String) -> ItemQuery {
        var lookup = query(account: account)
        lookup.accessGroups = [""]
        lookup.returnsAttributes = false
        return lookup
    }

    @Test func aSecretOnlyReadOpensTheSecretBoxAlone() throws {
        let keychain = try temporary.open()
        let added = try keychain.add(password(account: "a", secret: "secret-a", [.label: .string("A")]))
            .resultOrThrow()
        let found = try #require(try keychain.find(secretOnly("a")).resultOrThrow().first)
        #expect(found.secret?.string == "secret-a")
        #expect(found.persistentReference == added.persistentReference)
        #expect(found.attributes[.account] == .string("a"))
        #expect(found.attributes[.service] == .string("svc"))
        #expect(found.attributes[.accessGroup] == .string(""))
        #expect(found.attributes[.synchronizable] == .bool(false))
        #expect(found.attributes[.accessible] == .string(ProtectionClass.default.rawValue))
        #expect(found.attributes[.label] == nil)

        // With its attributes box damaged, the secret alone still opens; a read of the attributes fails.
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        var attributes = try inspector.blob("attributes", id: id)
        attributes[attributes.count / 2] ^= 0x01
        try inspector.setBlob("attributes", id: id, attributes)
        #expect(try keychain.find(secretOnly("a")).resultOrThrow().first?.secret?.string == "secret-a")
        #expect(status { try keychain.find(query(account: "a")).resultOrThrow() } == .decode)
    }

    @Test func alteringTheSecretSaltSyncOrProtectionStillFailsASecretOnlyRead() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", secret: "secret-a")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        for column in ["secret", "wrapped_key"] {
            let original = try inspector.blob(column, id: id)
            var bytes = original
            bytes[bytes.count / 2] ^= 0x01
            try inspector.setBlob(column, id: id, bytes)
            #expect(status { try keychain.find(secretOnly("a")).resultOrThrow() } == .decode, "altered \(column)")
            try inspector.setBlob(column, id: id, original)
        }
        try inspector.set("protection", id: id, .text("ck"))
        #expect(status { try keychain.find(secretOnly("a")).resultOrThrow() } == .decode)
        try inspector.set("protection", id: id, .text(ProtectionClass.default.rawValue))
        try inspector.set("sync", id: id, .integer(1))
        var anySync = secretOnly("a")
        anySync.synchronizable = .any
        #expect(status { try keychain.find(anySync).resultOrThrow() } == .decode)
        try inspector.set("sync", id: id, .integer(0))
        #expect(try keychain.find(secretOnly("a")).resultOrThrow().first?.secret?.string == "secret-a")
    }

    /// The digests take the group and `sync` from the query's own fields; one named among its attributes as well
    /// is checked against the item's, as every other search checks it.
    @Test func aGroupNamedAmongTheAttributesIsStillChecked() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", secret: "secret-a")).resultOrThrow()
        var elsewhere = secretOnly("a")
        elsewhere.attributes[.accessGroup] = .string("elsewhere")
        #expect(try keychain.find(elsewhere).resultOrThrow().isEmpty)
        var here = secretOnly("a")
        here.attributes[.accessGroup] = .string("")
        #expect(try keychain.find(here).resultOrThrow().first?.secret?.string == "secret-a")
    }

    /// The row's digest is what the statement selected it by, and its boxes are bound to it: a digest moved to
    /// another row makes that row answer neither query, rather than hand its secret to the other item's key.
    @Test func aPrimaryDigestMovedToAnotherRowOpensNeither() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", secret: "secret-a")).resultOrThrow()
        _ = try keychain.add(password(account: "b", secret: "secret-b")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let ids = try inspector.itemIDs()
        let first = try inspector.blob("primary_digest", id: ids[0])
        let second = try inspector.blob("primary_digest", id: ids[1])
        try inspector.setBlob("primary_digest", id: ids[0], [0])
        try inspector.setBlob("primary_digest", id: ids[1], first)
        try inspector.setBlob("primary_digest", id: ids[0], second)
        #expect(status { try keychain.find(secretOnly("a")).resultOrThrow() } == .decode)
        #expect(status { try keychain.find(secretOnly("b")).resultOrThrow() } == .decode)
        #expect(status { try keychain.find(query(account: "a")).resultOrThrow() } == .decode)
    }

    /// The format says whether an access control guards the item, and the boxes are bound to it: an item with an
    /// access control is sealed in the format whose attributes are opened, and relabelling either row's format
    /// opens neither.
    @Test func theSealingFormatIsBoundToTheBoxes() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        _ = try keychain.add(password(account: "open", secret: "secret-open")).resultOrThrow()
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .userPresence)
        _ = try keychain.add(
            password(
                account: "guarded", secret: "secret-guarded",
                [.accessible: .string(policy.protection.rawValue), .accessControl: .data(policy.encoded)])
        ).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let ids = try inspector.itemIDs()
        let formats = try ids.map {
            try inspector.connection.scalar("SELECT sealing FROM items WHERE id = ?", [.integer($0)])?.integer
        }
        #expect(formats == [3, 2])

        // Without the proof its policy asks for, the guarded item's secret is not returned to a secret-only read.
        guard case .needsAuthentication(let needed, _) = try keychain.find(secretOnly("guarded")) else {
            Issue.record("a secret-only read of an access-controlled item did not ask for its policy")
            return
        }
        #expect(needed.flags == policy.flags)

        try inspector.set("sealing", id: ids[1], .integer(3))
        #expect(status { try keychain.find(secretOnly("guarded")).resultOrThrow() } == .decode)
        try inspector.set("sealing", id: ids[0], .integer(2))
        #expect(status { try keychain.find(secretOnly("open")).resultOrThrow() } == .decode)
        #expect(status { try keychain.find(query(account: "open")).resultOrThrow() } == .decode)
        try inspector.set("sealing", id: ids[0], .integer(3))
        #expect(try keychain.find(secretOnly("open")).resultOrThrow().first?.secret?.string == "secret-open")
    }

    /// An update re-seals in the format the item's access control calls for, and rewrites the digest the boxes
    /// bind when the primary key changes.
    @Test func anUpdateSealsTheItemForItsNewPrimaryKey() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", secret: "secret-a")).resultOrThrow()
        let renamed = try keychain.update(
            query(account: "a", returnsSecret: false), with: ItemChanges(attributes: [.account: .string("a2")])
        ).resultOrThrow()
        #expect(renamed == 1)
        #expect(try keychain.find(secretOnly("a")).resultOrThrow().isEmpty)
        #expect(try keychain.find(secretOnly("a2")).resultOrThrow().first?.secret?.string == "secret-a")
    }
}
