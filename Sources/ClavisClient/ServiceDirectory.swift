import ClavisAuthentication
public import ClavisCore
import ClavisEmbedded
import ClavisIPC
import ClavisIdentity
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Finds the keychain service a configuration names: the daemon at `CLAVIS_SOCKET`; else a daemon listening on the
/// user socket (`$XDG_RUNTIME_DIR/clavis/clavisd.sock`) or the system socket (`/run/clavis/clavisd.sock`); else
/// the embedded keychain in the configured folder, for the caller its entitlements describe.
///
/// The daemon's service is kept per socket (one connection per process); finding none at the default sockets is
/// trusted for `noDaemonRecheckInterval`. For the embedded service, entitlements
/// are read once per file, and the sensor and the record of what each authentication session proved are kept per
/// keychain folder, entitlements file and sensor script (as long as the directory lives); the keychain is opened once
/// per folder and kept in the directory's `host`. A failure (an unreadable folder or entitlements file) is not kept,
/// so a later call tries again.
///
/// A directory owns what it finds and opens. The process's own, `process`, is the one that Apple's API (which has
/// no context to carry one) and the command line use, and it closes its keychains when the process exits.
public final class ServiceDirectory: Sendable {
    /// The system daemon's socket.
    public static let systemSocket = "/run/clavis/clavisd.sock"

    /// The keychains this directory opened.
    public let host: KeychainHost

    /// A directory with nothing found or opened yet, opening keychains in `host`.
    public init(host: KeychainHost = KeychainHost()) {
        self.host = host
        // A closing keychain drops the service made for it, outside the lock: the last reference to the keychain may
        // go with it, and closing the database (a checkpoint) must not hold up other threads' calls.
        host.whenClosing { [weak self] in _ = self?.lastEmbedded.withLock { $0.take() } }
    }

    /// The process's directory: the edge where Apple's API, the native API's default and the command line find
    /// their service. Its keychains are closed when the process exits.
    public static let process: ServiceDirectory = {
        let directory = ServiceDirectory()
        atexit(closeProcessKeychains)
        return directory
    }()

    /// The service for `configuration`, found by the process's directory.
    ///
    /// - Throws: as `service(for:)` of an instance.
    public static func service(for configuration: ClavisConfiguration) throws(KeychainError) -> any KeychainService {
        try process.service(for: configuration)
    }

    /// Drops the process's connection to the daemon at `socket` (`disconnect(socket:)` of an instance).
    public static func disconnect(socket: String) {
        process.disconnect(socket: socket)
    }

    /// The service for `configuration`.
    ///
    /// - Throws: `missingEntitlement` for an unreadable entitlements file; the keychain's own errors when it cannot
    ///   be opened. (A configured daemon that does not answer fails the calls, with `notAvailable`.)
    public func service(for configuration: ClavisConfiguration) throws(KeychainError) -> any KeychainService {
        if let socket = configuration.daemonSocket {
            return remote(socket, reason: "the daemon named by CLAVIS_SOCKET")
        }
        if configuration.looksForDaemon, let daemon = listeningDaemon(runtimeDirectory: configuration.runtimeDirectory)
        {
            return daemon
        }
        return try embedded(configuration)
    }

    /// How long a finding of no daemon at the user and system sockets is trusted before the sockets are looked at
    /// again: a program that runs embedded finds a daemon started later within this time, without paying two
    /// `lstat` calls on every keychain call.
    public static let noDaemonRecheckInterval = Duration.seconds(1)

    /// The daemon answering on the user socket (in `runtimeDirectory`) or else the system socket, if any.
    private func listeningDaemon(runtimeDirectory: String?) -> (any KeychainService)? {
        let now = ContinuousClock.now
        if let checked = noDaemonFound.withLock({ $0[runtimeDirectory] }), now - checked < Self.noDaemonRecheckInterval
        {
            return nil
        }
        if let runtimeDirectory,
            let daemon = answering(runtimeDirectory + "/clavis/clavisd.sock", reason: "the user daemon's socket")
        {
            return daemon
        }
        if let daemon = answering(Self.systemSocket, reason: "the system daemon's socket") {
            return daemon
        }
        noDaemonFound.withLock { $0[runtimeDirectory] = now }
        return nil
    }

    /// The embedded service for the configuration's folder, entitlements and sensor.
    private func embedded(_ configuration: ClavisConfiguration) throws(KeychainError) -> EmbeddedKeychainService {
        let key = EmbeddedKey(
            home: configuration.home.path, entitlementsPath: configuration.entitlementsPath,
            biometryScript: configuration.biometryScript)
        let generation = host.generation
        if let last = lastEmbedded.withLock({ $0 }), last.key == key, last.homeSource == configuration.homeSource,
            last.generation == generation
        {
            return last.service
        }
        let entitlements = try entitlements(path: configuration.entitlementsPath)
        let reason =
            "no daemon is configured or listening; keychain folder from \(configuration.homeSource)"
            + (configuration.entitlementsPath == nil ? "" : ", entitlements from CLAVIS_ENTITLEMENTS")
        let caller = callers.withLock { callers in
            if let known = callers[key] { return known }
            // The sensor is chosen once per caller, never per call.
            let made = EmbeddedCaller(
                authenticators: ServiceAuthenticators(
                    sensor: Authenticators.sensor(biometryScript: configuration.biometryScript)),
                ledger: AuthenticationLedger(clock: configuration.clock))
            callers[key] = made
            return made
        }
        let service = try host.service(
            home: configuration.home, entitlements: entitlements, reason: reason, authenticators: caller.authenticators,
            ledger: caller.ledger, clock: configuration.clock, deviceKeyOptions: try configuration.deviceKeyOptions())
        let made = LastEmbedded(
            key: key, homeSource: configuration.homeSource, generation: generation, service: service)
        lastEmbedded.withLock { $0 = made }
        return service
    }

    /// The embedded service made last and what it was made for (the home's source is named in its reason only).
    private struct LastEmbedded: Sendable {
        let key: EmbeddedKey
        let homeSource: String
        let generation: Int
        let service: EmbeddedKeychainService
    }

    /// The embedded service made last, while no keychain closed since: a process calls with one configuration, so
    /// its next call compares four strings instead of hashing them into three tables and rebuilding the service.
    /// A closing keychain drops it (see `init`).
    private let lastEmbedded = Mutex<LastEmbedded?>(nil)

    /// What the embedded services of one caller share: the sensor, and the record of what sessions proved.
    private struct EmbeddedCaller: Sendable {
        let authenticators: ServiceAuthenticators
        let ledger: AuthenticationLedger
    }

    /// What makes two embedded services' callers the same. (Not the clock: one keychain folder has one clock in
    /// practice, and the ledger keeps the clock of the configuration that first named its caller.)
    private struct EmbeddedKey: Hashable {
        let home: String
        let entitlementsPath: String?
        let biometryScript: String?
    }

    /// The daemon at `path` when a socket is there and a daemon answers on it (a stale socket is passed over).
    private func answering(_ path: String, reason: String) -> (any KeychainService)? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        let service = remote(path, reason: reason)
        do {
            try service.connect()
            return service
        } catch {
            return nil
        }
    }

    /// The service of the daemon at `socket`, one per socket and process.
    private func remote(_ socket: String, reason: String) -> RemoteKeychainService {
        remotes.withLock { remotes in
            if let known = remotes[socket] { return known }
            let service = RemoteKeychainService(socketPath: socket, reason: reason)
            remotes[socket] = service
            return service
        }
    }

    /// Drops this directory's connection to the daemon at `socket`: the next call connects anew, and the daemon
    /// identifies the caller again (after its registration changed, or the daemon restarted).
    public func disconnect(socket: String) {
        _ = remotes.withLock { $0.removeValue(forKey: socket) }
    }

    private func entitlements(path: String?) throws(KeychainError) -> Entitlements {
        if let known = loaded.withLock({ $0[path] }) { return known }
        let entitlements = try Entitlements.load(path: path)
        loaded.withLock { $0[path] = entitlements }
        return entitlements
    }

    private let loaded = Mutex<[String?: Entitlements]>([:])
    private let callers = Mutex<[EmbeddedKey: EmbeddedCaller]>([:])
    private let remotes = Mutex<[String: RemoteKeychainService]>([:])
    /// When no daemon was last found, per runtime folder.
    private let noDaemonFound = Mutex<[String?: ContinuousClock.Instant]>([:])
}

/// Runs at process exit: closes the keychains of the process's directory.
private func closeProcessKeychains() {
    ServiceDirectory.process.host.closeAll()
}
