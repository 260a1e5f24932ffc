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

        // A row whose attributes column holds no blob at all is malformed, though a secret-only read never opens it.
        try inspector.set("attributes", id: id, .text("not a box"))
        #expect(status { try keychain.find(secretOnly("a")).resultOrThrow() } == .decode)
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

    /// Only passwords are answered from their secret alone: a key's answer depends on its other attributes (one a
    /// token holds is answered with its public key only), so a key named whole is still read with its attributes.
    @Test func aKeyNamedWholeIsReadWithItsAttributes() throws {
        let keychain = try temporary.open()
        let primaryKey: [AttributeKey: AttributeValue] = [
            .keyClass: .number(1), .applicationLabel: .data(Data(repeating: 0x5A, count: 20)),
            .applicationTag: .data(Data("com.example.key".utf8)), .keyType: .number(73), .keySizeInBits: .number(256),
            .effectiveKeySize: .number(256), .startDate: .date(Date(timeIntervalSince1970: 0)),
            .endDate: .date(Date(timeIntervalSince1970: 0)), .creator: .number(0),
        ]
        _ = try keychain.add(
            NewItem(
                itemClass: .key, attributes: primaryKey.merging([.label: .string("K")]) { $1 },
                secret: "private".secret)
        ).resultOrThrow()
        let named = ItemQuery(
            itemClass: .key, attributes: primaryKey, accessGroups: [""], limit: .one, returnsSecret: true,
            returnsAttributes: false)
        #expect(try keychain.explain(named).contains { $0.contains("items_primary_key") })
        let found = try #require(try keychain.find(named).resultOrThrow().first)
        #expect(found.secret?.string == "private")
        #expect(found.attributes[.label] == .string("K"))
    }

    /// An item of another group is not found by a secret-only read of the caller's groups, and one found in
    /// several groups comes back once per group, up to the limit.
    @Test func aSecretOnlyReadSeesTheGroupsItSearchesOnly() throws {
        let keychain = try temporary.open()
        for group in ["team.one", "team.two"] {
            _ = try keychain.add(password(account: "a", secret: "secret-\(group)", [.accessGroup: .string(group)]))
                .resultOrThrow()
        }
        var lookup = secretOnly("a")
        lookup.accessGroups = ["team.three"]
        #expect(try keychain.find(lookup).resultOrThrow().isEmpty)
        lookup.accessGroups = ["team.two", "team.one"]
        lookup.limit = .all
        let found = try keychain.find(lookup).resultOrThrow()
        #expect(found.map { $0.secret?.string } == ["secret-team.one", "secret-team.two"])
        #expect(found.map { $0.attributes[.accessGroup] } == [.string("team.one"), .string("team.two")])
        lookup.limit = .one
        #expect(try keychain.find(lookup).resultOrThrow().map { $0.secret?.string } == ["secret-team.one"])
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

    /// An access control added by an update seals the item in the format whose attributes are opened, so its
    /// policy is asked for; removed, the item is read from its secret alone again.
    @Test func anAccessControlAddedByAnUpdateIsEvaluatedOnASecretOnlyRead() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .userPresence)
        _ = try keychain.add(
            password(account: "a", secret: "secret-a", [.accessible: .string(policy.protection.rawValue)])
        ).resultOrThrow()
        _ = try keychain.update(
            query(account: "a", returnsSecret: false),
            with: ItemChanges(attributes: [.accessControl: .data(policy.encoded)])
        ).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        #expect(try inspector.connection.scalar("SELECT sealing FROM items WHERE id = ?", [.integer(id)])?.integer == 2)
        guard case .needsAuthentication = try keychain.find(secretOnly("a")) else {
            Issue.record("a secret-only read of an item given an access control did not ask for its policy")
            return
        }
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
