import ClavisTesting
import Foundation
import Security
import Testing

/// The kit with a private clavisd: app deletion and reinstallation edit the real daemon's registry, and a restart
/// restarts it; the test's calls go over the daemon's socket.
@Suite struct PrivateDaemonTests {
    /// clavisd, built next to this test bundle.
    static let clavisd: String = {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("clavisd").path
    }()

    @Test func aDeletedAppsItemsStayInTheDaemonAndComeBackWhenItIsReinstalled() throws {
        let keychain = try TemporaryKeychain(clavisd: Self.clavisd)
        try keychain.run { try saveToken(token: "token", service: "api") }

        try keychain.deleteApp()
        keychain.run {
            #expect(throws: KeychainError.unexpectedStatus(errSecItemNotFound)) { try readToken(service: "api") }
        }
        let logged = keychain.waitForDaemonLog("is no longer registered")
        #expect(logged.contains("app TEAM123456.com.example.app is no longer registered; its items stay"))

        try keychain.reinstallApp()
        let token = try keychain.run { try readToken(service: "api") }
        #expect(token == "token")
    }

    @Test func deletingItemsThroughTheDaemonKeepsTheGroupsAnotherRegisteredAppHolds() throws {
        let keychain = try TemporaryKeychain(
            app: TestApp(applicationIdentifier: "TEAM.a", accessGroups: ["TEAM.a", "TEAM.shared"]),
            otherApps: [TestApp(applicationIdentifier: "TEAM.b", accessGroups: ["TEAM.shared"])],
            clavisd: Self.clavisd)
        keychain.run {
            #expect(save("own", account: "own") == errSecSuccess)
            #expect(save("shared", account: "shared", accessGroup: "TEAM.shared") == errSecSuccess)
        }

        #expect(try keychain.deleteApp(deletingItems: true) == 1)
        let logged = keychain.waitForDaemonLog("another registered app holds them")
        #expect(logged.contains("deleted 1 items of a removed app's groups (TEAM.a); kept TEAM.shared"))
        #expect(!logged.contains("own\n") && !logged.contains("shared\n"), "no secret in the daemon's log")

        try keychain.reinstallApp()
        keychain.run {
            #expect(read(account: "own").0 == errSecItemNotFound)
            #expect(read(account: "shared") == (errSecSuccess, "shared"))
        }
    }

    @Test func aRestartedDaemonOpensAfterFirstUnlockItemsOnlyAfterTheFirstUnlock() throws {
        let keychain = try TemporaryKeychain(passcode: "1234", clavisd: Self.clavisd)
        try keychain.run {
            #expect(
                save("refresh", account: "refresh", accessible: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
            try saveToken(token: "token", service: "api")
            try keychain.lock()
            #expect(read(account: "refresh") == (errSecSuccess, "refresh"))

            try keychain.restart()
            #expect(read(account: "refresh").0 == errSecInteractionNotAllowed)
            try keychain.unlock()
            #expect(read(account: "refresh") == (errSecSuccess, "refresh"))
            #expect(try readToken(service: "api") == "token")

            try keychain.moveToNewDevice()
            #expect(read(account: "refresh") == (errSecSuccess, "refresh"))
            #expect(throws: KeychainError.unexpectedStatus(errSecItemNotFound)) { try readToken(service: "api") }
        }
    }
}
