import ClavisTesting
import Security
import Testing

/// `deleteApp(deletingItems:)` and `reinstallApp()`: items stay by default and come back; deleted, they are gone,
/// except those of a group another installed app holds.
@Suite struct AppLifecycleTests {
    @Test func aDeletedAppsItemsComeBackWhenItIsReinstalled() throws {
        let keychain = try TemporaryKeychain()
        try keychain.run { try saveToken(token: "token", service: "api") }

        #expect(try keychain.deleteApp() == 0)
        keychain.run {
            #expect(throws: KeychainError.unexpectedStatus(errSecItemNotFound)) { try readToken(service: "api") }
        }
        try keychain.reinstallApp()
        #expect(try keychain.run { try readToken(service: "api") } == "token")
    }

    @Test func deletingItemsKeepsOnlyTheGroupsAnotherInstalledAppHolds() throws {
        let keychain = try TemporaryKeychain(
            app: TestApp(applicationIdentifier: "TEAM.a", accessGroups: ["TEAM.a", "TEAM.shared"]),
            otherApps: [TestApp(applicationIdentifier: "TEAM.b", accessGroups: ["TEAM.shared"])])
        keychain.run {
            #expect(save("own", account: "own") == errSecSuccess)
            #expect(save("shared", account: "shared", accessGroup: "TEAM.shared") == errSecSuccess)
        }

        #expect(try keychain.deleteApp(deletingItems: true) == 1)
        try keychain.reinstallApp()
        keychain.run {
            #expect(read(account: "own").0 == errSecItemNotFound)
            #expect(read(account: "shared") == (errSecSuccess, "shared"))
        }
    }
}
