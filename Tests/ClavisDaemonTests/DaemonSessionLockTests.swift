import ClavisClient
import ClavisCore
import ClavisTestSupport
import Foundation
import Security
import Testing

/// clavisd follows logind on the system bus: a session's screen lock locks its user's keychain (`WhenUnlocked` items
/// close, `AfterFirstUnlock` ones stay open, as on a locked iPhone), going to sleep locks it too, and logind's
/// `Unlock` opens nothing: the passcode does.
@Suite(.serialized, .preparedKeychain) struct DaemonSessionLockTests {
    /// Reads the item of `service` without asking anyone, through the daemon at `socket`.
    private func read(_ service: String, socket: String) -> OSStatus {
        ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(daemonSocket: socket)) {
            var result: CFTypeRef?
            return SecItemCopyMatching(
                [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecReturnData as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
                ] as CFDictionary, &result)
        }
    }

    private func add(_ service: String, protection: CFString, socket: String) -> OSStatus {
        ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(daemonSocket: socket)) {
            SecItemAdd(
                [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecAttrAccessible as String: protection, kSecValueData as String: Data("session".utf8),
                ] as CFDictionary, nil)
        }
    }

    @Test func aSessionLockClosesWhenUnlockedItemsAndLogindsUnlockOpensNothing() throws {
        let logind = try ScriptedLogind()
        defer { logind.stop() }
        let daemon = try TestDaemon(mode: "user", environment: logind.environment)
        defer { daemon.stop() }
        #expect(daemon.waitForLog("following logind's session locks").contains("following logind's session locks"))

        let client = try KeychainClient(configuration: ClavisConfiguration.current.with(daemonSocket: daemon.socket))
        try client.setPasscode(SecureBytes(Data("2468".utf8)), current: nil, strength: .cheapForTesting)
        #expect(add("screen-ak", protection: kSecAttrAccessibleWhenUnlocked, socket: daemon.socket) == errSecSuccess)
        #expect(
            add("screen-ck", protection: kSecAttrAccessibleAfterFirstUnlock, socket: daemon.socket) == errSecSuccess)
        #expect(read("screen-ak", socket: daemon.socket) == errSecSuccess)

        let uid = getuid()
        logind.lock(session: "c7", uid: uid)
        #expect(daemon.waitForLog("its user's session locked").contains("its user's session locked"))
        #expect(read("screen-ak", socket: daemon.socket) == errSecInteractionNotAllowed)
        #expect(read("screen-ck", socket: daemon.socket) == errSecSuccess)

        logind.unlock(session: "c7", uid: uid)
        #expect(daemon.waitForLog("session unlocked").contains("stays locked until its passcode is given"))
        #expect(read("screen-ak", socket: daemon.socket) == errSecInteractionNotAllowed)

        try client.unlock(passcode: SecureBytes(Data("2468".utf8)))
        #expect(read("screen-ak", socket: daemon.socket) == errSecSuccess)
        // Another user's session locking leaves this user's keychain open; logind's signals arrive in order, so
        // once this user's own unlock is reported, the other lock has been handled.
        logind.lock(session: "c9", uid: uid &+ 4242)
        logind.unlock(session: "c7", uid: uid)
        #expect(daemon.waitForLog("session unlocked").contains("session unlocked"))
        #expect(read("screen-ak", socket: daemon.socket) == errSecSuccess)

        logind.sleep()
        #expect(daemon.waitForLog("going to sleep").contains("going to sleep"))
        #expect(read("screen-ak", socket: daemon.socket) == errSecInteractionNotAllowed)
        #expect(read("screen-ck", socket: daemon.socket) == errSecSuccess)
    }

    @Test func aDaemonWithoutASystemBusSaysSessionLocksAreNotFollowedAndServes() throws {
        let daemon = try TestDaemon(
            mode: "user", environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket"])
        defer { daemon.stop() }
        #expect(daemon.waitForLog("session locks").contains("session locks are not followed"))
        #expect(add("no-bus", protection: kSecAttrAccessibleWhenUnlocked, socket: daemon.socket) == errSecSuccess)
        #expect(read("no-bus", socket: daemon.socket) == errSecSuccess)
    }
}
