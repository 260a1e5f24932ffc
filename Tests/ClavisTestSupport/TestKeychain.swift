import Foundation
import Synchronization

#if canImport(Testing)
    import Testing
#endif

/// The test process's keychain: a fresh home in a temporary folder and entitlements naming two groups.
///
/// Set once per test run, before the first keychain call; every test calls `prepare()` first and uses its own
/// service names, so tests running in parallel never see each other's items.
public enum TestKeychain {
    /// The application identifier in the test entitlements (and the default access group's fallback).
    public static let applicationIdentifier = "TEAM123456.com.example.securitytests"
    /// The first listed group: where items go when a query names none.
    public static let defaultGroup = "TEAM123456.com.example.securitytests"
    /// The shared group of the seeds' `saveSharedToken`.
    public static let sharedGroup = "group.com.example.shared"
    /// A group this process does not hold.
    public static let foreignGroup = "group.com.example.other"
    /// The app group in the test entitlements (`com.apple.security.application-groups`): a group after the others.
    public static let appGroup = "group.com.example.appgroup"

    /// The temporary home folder.
    public static let home: String = {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("clavis-security-tests-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        TemporaryFolders.removeAtExit(folder)
        let entitlements = folder + "/tests.entitlements"
        let plist: [String: Any] = [
            "application-identifier": applicationIdentifier,
            "keychain-access-groups": [defaultGroup, sharedGroup],
            "com.apple.security.application-groups": [appGroup],
        ]
        let data = try! PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try! data.write(to: URL(fileURLWithPath: entitlements))
        setenv("CLAVIS_HOME", folder + "/home", 1)
        setenv("CLAVIS_ENTITLEMENTS", entitlements, 1)
        // Set once here and only overwritten later (never unset): glibc's environment is safe to read while a
        // value is replaced, not while entries are added or removed.
        setenv("CLAVIS_COMPAT", "macos", 1)
        // The scripted biometric sensor and the askpass program of the access-control tests (AccessControlSupport).
        setenv("CLAVIS_BIOMETRY_SCRIPT", folder + "/biometry.json", 1)
        setenv("CLAVIS_ASKPASS", folder + "/askpass", 1)
        if ProcessInfo.processInfo.environment["CLAVIS_TEST_THROUGH_DAEMON"] == "1" { startDaemon(folder: folder) }
        return folder
    }()

    /// With `CLAVIS_TEST_THROUGH_DAEMON=1` (Tests/through-daemon.sh), every in-process keychain call goes through a
    /// user-mode clavisd that registers this test executable with the test entitlements, so that the suites written
    /// against Apple's API run against the daemon as well as the embedded keychain. The daemon's own sensor is the
    /// scripted one the access-control tests write (a client's own never counts in daemon mode).
    nonisolated(unsafe) public private(set) static var daemon: TestDaemon?

    /// The daemons serving the other keychain folders tests choose (`withKeychainHome`), by folder.
    private static let daemonsByHome = Mutex<[String: TestDaemon]>([:])

    private static func startDaemon(folder: String) {
        let started = try! makeDaemon(options: ["--biometry-script", folder + "/biometry.json"])
        daemon = started
        setenv("CLAVIS_SOCKET", started.socket, 1)
        atexit {
            TestKeychain.daemon?.stop()
            TestKeychain.daemonsByHome.withLock { daemons in
                for daemon in daemons.values { daemon.stop() }
            }
        }
    }

    /// Through the daemon, the socket of a daemon serving the keychain in `path` (started on first use), whose sensor
    /// reads `biometryScript` (by default the access-control tests' script); `nil` when the tests run embedded.
    public static func daemonSocket(home path: String, biometryScript: String? = nil) -> String? {
        guard daemon != nil else { return nil }
        return daemonsByHome.withLock { daemons in
            if let known = daemons[path] { return known.socket }
            let script = biometryScript ?? home + "/biometry.json"
            let started = try! makeDaemon(options: ["--state", path, "--biometry-script", script])
            daemons[path] = started
            return started.socket
        }
    }

    private static func makeDaemon(options: [String]) throws -> TestDaemon {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return try TestDaemon(
            mode: "user",
            apps: [
                "tests.json": [
                    "executable": executable, "application-identifier": applicationIdentifier,
                    "keychain-access-groups": [defaultGroup, sharedGroup],
                    "com.apple.security.application-groups": [appGroup],
                ]
            ], options: options)
    }

    /// Makes sure the environment is set before a test's first keychain call.
    public static func prepare() { _ = home }

    /// The keychain home every in-process test uses.
    public static var keychainHome: String { home + "/home" }

    /// A service name no other test uses.
    public static func uniqueService(_ function: String = #function) -> String {
        prepare()
        return "svc.\(function.prefix(40)).\(UUID().uuidString)"
    }
}

// Swift Testing is there only when tests are built (not in a release build of the package).
#if canImport(Testing)
    /// Sets the test process's environment (`TestKeychain.prepare()`) before each test of a suite runs: a client reads
    /// its configuration once, on first use, so nothing may reach the keychain (or make an `LAContext`) before.
    public struct PreparedKeychain: SuiteTrait, TestTrait, TestScoping {
        public var isRecursive: Bool { true }

        /// The trait (`.preparedKeychain`).
        public init() {}

        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            TestKeychain.prepare()
            try await function()
        }
    }

    extension Trait where Self == PreparedKeychain {
        /// The test process's keychain environment, set before the suite's tests run.
        public static var preparedKeychain: PreparedKeychain { PreparedKeychain() }
    }
#endif
