import ClavisCore
import ClavisCrypto
import ClavisStore
import Testing

/// While the keychain is locked, the store names the items a query matches that the lock keeps closed, by their
/// references, matching on lookup digests alone: what a Secret Service search answers in its `locked` list.
@Suite struct LockedReferenceTests {
    let temporary = TemporaryHome()

    /// A Secret Service item of `collection` holding `pairs`, in `group`, of protection class `protection`.
    private func item(
        _ account: String, _ pairs: [String: String], collection: String = "login", group: String = "shared",
        protection: ProtectionClass = .whenUnlocked
    ) -> NewItem {
        password(
            account: account, service: collection,
            [
                .secretServiceAttributes: .data(SecretServiceAttributes(pairs).encoded),
                .accessGroup: .string(group), .accessible: .string(protection.rawValue),
            ])
    }

    private func search(_ pairs: [String: String], collection: String? = nil, groups: [String]? = nil) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword, attributes: collection.map { [.service: .string($0)] } ?? [:],
            secretServiceAttributes: pairs, accessGroups: groups)
    }

    @Test func aLockedKeychainNamesExactlyTheClosedItemsWhoseDigestsMatch() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("7391".secret, current: nil, kdf: .cheapForTesting())
        let anna = try keychain.add(item("1", ["service": "smtp", "user": "anna"])).resultOrThrow()
        let annaElsewhere = try keychain.add(item("2", ["service": "smtp", "user": "anna"], collection: "work"))
            .resultOrThrow()
        _ = try keychain.add(item("3", ["service": "smtp", "user": "ben"])).resultOrThrow()
        _ = try keychain.add(item("4", ["service": "smtp", "user": "anna"], group: "private")).resultOrThrow()
        _ = try keychain.add(item("5", ["service": "smtp", "user": "anna"], protection: .afterFirstUnlock))
            .resultOrThrow()
        #expect(try keychain.lockedReferences(search(["user": "anna"])).isEmpty, "nothing is locked yet")

        keychain.lock()
        let smtpAnna = search(["service": "smtp", "user": "anna"], groups: ["shared"])
        #expect(
            try keychain.lockedReferences(smtpAnna)
                == [anna.persistentReference, annaElsewhere.persistentReference])
        #expect(
            try keychain.lockedReferences(search(["user": "anna"], collection: "login", groups: ["shared"]))
                == [anna.persistentReference])
        var one = smtpAnna
        one.limit = .one
        #expect(try keychain.lockedReferences(one) == [anna.persistentReference])
        #expect(try keychain.lockedReferences(search(["user": "carol"])).isEmpty)
        #expect(try keychain.lockedReferences(search(["user": "anna"], groups: ["elsewhere"])).isEmpty)
        // The item of an open class is find's to answer: it is not locked.
        #expect(try keychain.find(smtpAnna).resultOrThrow().map(\.attributes[.account]) == [.string("5")])

        try keychain.unlock(passcode: "7391".secret)
        #expect(try keychain.lockedReferences(smtpAnna).isEmpty)
    }

    @Test func anAttributeOnlyTheSealedItemHoldsCannotBeMatchedWhileLocked() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(item("1", ["service": "smtp"])).resultOrThrow()
        keychain.lock()
        var query = search(["service": "smtp"])
        query.attributes[.comment] = .string("sealed")
        #expect(status { try keychain.lockedReferences(query) } == .param)
    }
}
