public import ClavisClient
public import ClavisCore
import ClavisEmbedded
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A keychain for one test: a fresh embedded keychain in a temporary folder, the app under test's entitlements, a
/// scripted biometric sensor, a passcode prompt that answers with the passcode the kit set, and a clock the test moves
/// by hand. Every state an app meets on a device is one call away: `lock()`, `unlock(passcode:)`, `restart()`,
/// `setPasscode(_:)`, `removePasscode()`, `enrolBiometry(_:)`, `changeEnrolment(to:)`,
/// `scheduleBiometricChecks(_:)`, `deleteApp(deletingItems:)`, `reinstallApp()`, `moveToNewDevice()` and
/// `advanceClock(by:)`.
///
/// The test's own `Security` and `LocalAuthentication` calls reach it inside `run(_:)`:
///
/// ```swift
/// let keychain = try TemporaryKeychain(passcode: "1234")
/// try keychain.run {
///     try saveToken(token: "t", service: "api")
///     try keychain.lock()
///     #expect(throws: KeychainError.unexpectedStatus(errSecInteractionNotAllowed)) {
///         try readToken(service: "api")
///     }
/// }
/// ```
///
/// The folder is removed when the kit goes away (or at `remove()`). Transitions throw `KeychainError` when the
/// keychain refuses them (a wrong passcode, a locked keychain that cannot be backed up).
///
/// Given a `clavisd` executable, the kit starts a private daemon (user mode) on the keychain instead, registers the
/// test's own executable as `app` and the `otherApps` under placeholder paths, and every call goes through the
/// daemon's socket: app deletion and reinstallation then edit the daemon's registry, as `clavis app` does, and a
/// restart restarts the daemon. The daemon keeps its own time: `advanceClock(by:)` then moves only the test's
/// `LAContext`s.
public final class TemporaryKeychain: Sendable {
    /// The app under test: `run(_:)` calls the keychain with its entitlements.
    public let app: TestApp
    /// Other apps installed on the device: the groups they hold survive `deleteApp(deletingItems: true)`.
    public let otherApps: [TestApp]
    /// The clock the keychain and the test's `LAContext`s read (`advanceClock(by:)`).
    public let clock = KeychainClock.adjustable()

    let folder: TemporaryFolder
    let state: Mutex<State>
    /// The private clavisd, when the kit runs one.
    let daemon: PrivateDaemon?

    /// What the transitions change.
    struct State {
        /// How many devices the app was on: `moveToNewDevice()` puts the old one's keychain aside.
        var device = 1
        /// False between `deleteApp` and `reinstallApp`.
        var installed = true
        /// The passcode set, if any.
        var passcode: String?
    }

    /// A new, empty keychain for `app`, with `otherApps` installed beside it, and with `passcode` set when given
    /// (the keychain is then unlocked). No biometry is enrolled until `enrolBiometry(_:)`. With `clavisd` (the
    /// daemon's executable), calls go through a private daemon.
    ///
    /// - Throws: `io` when the temporary folder cannot be made or the daemon does not start; the keychain's error
    ///   when it cannot be opened.
    public init(
        app: TestApp = TestApp(applicationIdentifier: "TEAM123456.com.example.app"), otherApps: [TestApp] = [],
        passcode: String? = nil, clavisd: String? = nil
    ) throws(KeychainError) {
        self.app = app
        self.otherApps = otherApps
        let folder = try TemporaryFolder(prefix: "clavis-testing")
        self.folder = folder
        state = Mutex(State())
        daemon = clavisd.map {
            PrivateDaemon(executable: $0, folder: folder.path, biometryScript: folder.path + "/" + Self.scriptName)
        }
        do {
            try folder.write(app.entitlementsJSON, to: Self.appEntitlements)
            try folder.write(Self.removedApp.entitlementsJSON, to: Self.removedAppEntitlements)
            try folder.write("#!/bin/sh\ncat '\(folder.path)/\(Self.askpassAnswer)'\n", to: "askpass", mode: 0o700)
            try writePasscodeAnswer(nil)
            try writeScript(BiometryScript())
            if let daemon {
                try writeRegistrations(appInstalled: true)
                mkdir(home.path, 0o700)
                try daemon.start(state: home.path)
            }
            if let passcode { try setPasscode(passcode) }
        } catch {
            daemon?.stop()
            folder.remove()
            throw error
        }
    }

    deinit {
        remove()
    }

    /// Closes the keychain and removes its folder; later calls fail.
    public func remove() {
        daemon?.stop()
        daemon.map { ServiceDirectory.disconnect(socket: $0.socket) }
        ServiceDirectory.process.host.close(home: home)
        folder.remove()
    }

    /// The configuration `run(_:)` gives the test's calls: the temporary keychain, the app's entitlements (another
    /// identity while the app is deleted), the scripted sensor, the passcode prompt and the clock.
    public var configuration: ClavisConfiguration {
        let installed = state.withLock { $0.installed }
        var configuration = ClavisConfiguration(
            home: home, homeSource: "ClavisTesting",
            entitlementsPath: folder.path + "/" + (installed ? Self.appEntitlements : Self.removedAppEntitlements),
            askpassProgram: folder.path + "/askpass", biometryScript: scriptPath)
        // The data-protection keychain's rules, as on iOS: a locked keychain answers errSecInteractionNotAllowed.
        configuration.dataProtectionRulesByDefault = true
        configuration.clock = clock
        configuration.looksForDaemon = false
        return configuration.with(daemonSocket: daemon?.socket)
    }

    /// Runs `body` with this keychain as the keychain of every `Security` and `LocalAuthentication` call it makes
    /// (and of the tasks it starts). Every transition reaches a `run` in progress, except `deleteApp` and
    /// `reinstallApp`, which change who the app is from the next `run` on (a deleted app's code does not run).
    @discardableResult
    public func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        try ClavisConfiguration.withConfiguration(configuration, body)
    }

    /// The asynchronous form of `run(_:)`.
    @discardableResult
    public func run<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await ClavisConfiguration.withConfiguration(configuration, isolation: isolation, body)
    }

    /// A client of the keychain as it is now.
    func client() throws(KeychainError) -> KeychainClient {
        try KeychainClient(configuration: configuration)
    }

    /// What the private daemon wrote to its log (standard error) so far; empty without one.
    public var daemonLog: String { daemon?.logText ?? "" }

    /// The private daemon's log once it contains `text` (waiting for it to be written), or everything it wrote
    /// before it ended; empty without a daemon.
    public func waitForDaemonLog(_ text: String) -> String {
        daemon?.waitForLog(text) ?? ""
    }

    /// Writes the private daemon's registry: the app (the test's own executable), unless deleted, and the other apps.
    func writeRegistrations(appInstalled: Bool) throws(KeychainError) {
        guard let daemon else { return }
        mkdir(daemon.registry, 0o700)
        let registry = TemporaryFolder(existing: daemon.registry)
        if appInstalled {
            try registry.write(app.json(executable: Self.testExecutable), to: "app.json")
        } else {
            registry.removeFile("app.json")
        }
        for (index, other) in otherApps.enumerated() {
            try registry.write(other.json(executable: folder.path + "/other-app-\(index)"), to: "other-\(index).json")
        }
        // The daemon identifies a caller when it connects: the next call connects anew.
        ServiceDirectory.disconnect(socket: daemon.socket)
    }

    /// The running test executable, as the kernel names it.
    static let testExecutable: String = {
        guard let resolved = realpath("/proc/self/exe", nil) else { return "/proc/self/exe" }
        defer { free(resolved) }
        return String(cString: resolved)
    }()

    /// The keychain folder of the device the app is on now.
    var home: KeychainHome { KeychainHome(path: folder.path + "/device") }

    /// The passcode prompt's answer from now on: `passcode`, or nothing.
    func writePasscodeAnswer(_ passcode: String?) throws(KeychainError) {
        try folder.write(passcode.map { $0 + "\n" } ?? "", to: Self.askpassAnswer)
    }

    static let appEntitlements = "app.entitlements"
    static let removedAppEntitlements = "removed-app.entitlements"
    static let askpassAnswer = "askpass-answer"
    /// Who calls while the app is deleted: an identity holding none of the app's groups.
    static let removedApp = TestApp(applicationIdentifier: "clavis-testing.no-app-installed")
}
