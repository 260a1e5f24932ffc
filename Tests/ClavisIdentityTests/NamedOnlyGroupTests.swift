import ClavisCore
import ClavisIdentity
import Testing

/// The group Secret Service clients share may be named by any caller that has not opted out of sharing, and is left
/// out of the searches that name no group.
@Suite struct NamedOnlyGroupTests {
    private let shared = SecretServiceItem.sharedAccessGroup

    @Test func aSharingCallerMayNameTheSecretServiceGroupWhichItsOwnSearchesLeaveOut() throws {
        let entitlements = Entitlements(applicationIdentifier: "TEAM.app", keychainAccessGroups: ["TEAM.group"])
        #expect(entitlements.sharesSecretService)
        try entitlements.require(shared)
        #expect(try entitlements.searchGroups([shared]) == [shared])
        #expect(try entitlements.searchGroups(nil) == ["TEAM.group", "TEAM.app"])
        #expect(entitlements.defaultGroup == "TEAM.group")
        #expect(throws: KeychainError.self) { try entitlements.require("TEAM.other") }
    }

    @Test func aCallerThatOptedOutMayNotNameIt() {
        var entitlements = Entitlements(applicationIdentifier: "TEAM.app", keychainAccessGroups: [])
        entitlements.sharesSecretService = false
        #expect(entitlements.namedOnlyGroups.isEmpty)
        #expect(throws: KeychainError.self) { try entitlements.require(shared) }
        #expect(throws: KeychainError.self) { try entitlements.searchGroups([shared]) }
    }
}
