import ClavisCore
import ClavisStore
import FoundationEssentials
import Testing

/// `Keychain.deleteAccessGroups`: a removed app's items go whatever their class, lock state or synchronizability,
/// and no other group's do.
@Suite struct AccessGroupPurgeTests {
    let temporary = TemporaryHome()

    @Test func deletesEveryItemOfTheGroupsEvenWhileLockedAndNoOther() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        _ = try keychain.add(password(account: "a", [.accessGroup: .string("TEAM.gone")])).resultOrThrow()
        _ = try keychain.add(
            password(account: "b", [.accessGroup: .string("TEAM.gone"), .synchronizable: .bool(true)])
        ).resultOrThrow()
        _ = try keychain.add(password(account: "c", [.accessGroup: .string("TEAM.stays")])).resultOrThrow()
        keychain.lock()

        #expect(try keychain.deleteAccessGroups(["TEAM.gone"]) == 2)
        try keychain.unlock(passcode: "1234".secret)
        let left = try keychain.find(
            ItemQuery(itemClass: .genericPassword, synchronizable: .any, accessGroups: ["TEAM.gone", "TEAM.stays"])
        ).resultOrThrow()
        #expect(left.map(\.accessGroup) == ["TEAM.stays"])
        #expect(try keychain.deleteAccessGroups([]) == 0)
        #expect(try keychain.deleteAccessGroups(["TEAM.gone"]) == 0, "nothing, tombstones included, is left")
    }
}
