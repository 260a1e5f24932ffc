import ClavisAuthentication
public import ClavisCore
import ClavisEmbedded
import ClavisIPC
import ClavisIdentity
import ClavisSystem
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// clavisd's server: accepts connections on a Unix socket, identifies each peer from the kernel, and answers its
/// requests with the embedded keychain service of the peer's user, for the groups the app registry gives it.
///
/// Each connection is served on its own thread, one request at a time. A malformed, truncated or oversized frame
/// closes that connection and nothing else; a client that goes away mid-call loses nothing the keychain had
/// acknowledged (each call is one SQLite transaction).
public final class KeychainDaemon: Sendable {
    /// How the daemon runs.
    public let settings: DaemonSettings
    /// The apps it knows, read again whenever the registry folder changes.
    private let registry: RegistryWatch
    private let listening: Int32
    let daemonUID: UInt32
    let idleLock: IdleLock?
    /// What every request was and how it was answered.
    public let accessLog: AccessLog
    /// The Secret Service's `session` collection: items in memory only, for this daemon's life.
    let secretServiceSession = SessionCollection()
    /// The keychains the daemon has open: each user's, from its first request until the daemon stops.
    /// Each keychain's sync runs here, on a thread of its own: clavisd is the one writer of its keychains.
    let host = KeychainHost(runsSyncInBackground: true, syncReport: DaemonLog.report)

    /// A daemon answering on the listening socket `listening` (one it bound, or one systemd passed).
    public init(settings: DaemonSettings, listening: Int32) {
        self.settings = settings
        // A registration grants groups: only the files of root (system mode) or of the daemon's user count.
        self.registry = RegistryWatch(folder: settings.registryFolder, owner: settings.mode == .system ? 0 : getuid())
        self.listening = listening
        // Every byte a client sends then carries its process's credentials, from its connect on (each request is
        // answered for the process that sent it: `ConnectionSession`).
        UnixSocket.passCredentials(listening)
        daemonUID = getuid()
        idleLock = settings.autoLock.map(IdleLock.init(period:))
        accessLog = AccessLog(folder: settings.state, limit: settings.accessLogLimit)
    }

    /// Binds the settings' socket: mode 0666 in system mode (any local user may connect), 0600 in user mode.
    ///
    /// - Throws: `io` naming the socket and the system's reason.
    public static func listen(on path: String, mode: DaemonSettings.Mode) throws(KeychainError) -> Int32 {
        do throws(SystemError) {
            return try UnixSocket.listen(at: path, mode: mode == .system ? 0o666 : 0o600)
        } catch {
            throw KeychainError(.io, "cannot listen on \(path): \(error)")
        }
    }

    /// Accepts connections until the listening socket fails; each is served on its own thread.
    public func run() -> Never {
        resumeSync()
        // The timer lives as long as the accept loop, which is the daemon's life.
        let timer = idleLock.map(lockIdleKeychains)
        withExtendedLifetime(timer) { () -> Never in
            while true {
                do throws(SystemError) {
                    admit(try UnixSocket.accept(listening))
                } catch {
                    switch error.code {
                    case EINTR, ECONNABORTED, EAGAIN, EPROTO:
                        continue
                    case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                        // Out of descriptors or memory: let connections end before accepting more.
                        UnixSocket.waitReadable(-1, milliseconds: 100)
                        continue
                    default:
                        DaemonLog.report("cannot accept connections: \(error)")
                        exit(1)
                    }
                }
            }
        }
    }

    /// The most connections one user may hold open at once; more are closed at once.
    static let connectionsPerUser = 64
    /// How long a connection's thread waits awake for the client's next request before it sleeps (`SocketConnection
    /// .pollMicroseconds`): a client calling in a row is served without a wake-up between its calls.
    static let nextRequestPollMicroseconds: UInt32 = 100
    /// How long a connection may sit between requests, and a request take to arrive, in seconds.
    static let idleSeconds: Int32 = 600
    /// How long sending an answer may take, in seconds (as long as a client waits for one): a client that reads it
    /// slowly or never holds its connection's thread, and the answer's memory (up to 64 MiB), no longer.
    static let answerWaitSeconds: Int32 = 120
    private let openConnections = Mutex<[UInt32: Int]>([:])
    /// What the requests being received may hold in memory.
    private let requestBudget = RequestBudget()

    /// Serves `connection` on a thread of its own, unless its user already holds `connectionsPerUser`: one user's
    /// idle connections cannot take every thread from the others.
    private func admit(_ descriptor: Int32) {
        let connection = SocketConnection(
            descriptor: descriptor, pollMicroseconds: Self.nextRequestPollMicroseconds, readsSenders: true)
        guard let peer = try? UnixSocket.peer(of: descriptor) else { return }
        let uid = peer.uid
        connection.budget = requestBudget.forUser(uid)
        let admitted = openConnections.withLock { open in
            guard open[uid, default: 0] < Self.connectionsPerUser else { return false }
            open[uid, default: 0] += 1
            return true
        }
        guard admitted else { return }
        UnixSocket.limitReceiveWait(descriptor, seconds: Self.idleSeconds)
        connection.limitSendWait(seconds: Self.answerWaitSeconds)
        let handedOver = SendableConnection(connection)
        let started = DetachedThread.start {
            ConnectionSession(daemon: self, connection: handedOver.connection, connected: peer).run()
            self.openConnections.withLock { $0[uid, default: 1] -= 1 }
        }
        if !started { openConnections.withLock { $0[uid, default: 1] -= 1 } }
    }

    /// Hands a connection to the one thread that serves it (it is used by that thread only).
    private struct SendableConnection: @unchecked Sendable {
        let connection: SocketConnection
        init(_ connection: SocketConnection) { self.connection = connection }
    }

    /// Every few seconds (a tenth of the idle period, at most a minute), locks the keychains nobody used for the
    /// idle period.
    private func lockIdleKeychains(_ idleLock: IdleLock) -> any DispatchSourceTimer {
        let interval = min(idleLock.period / 10, .seconds(60))
        let milliseconds = Int(
            interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(max(milliseconds, 1)))
        let host = self.host
        timer.setEventHandler {
            _ = host.lockThoseWithPasscode(in: idleLock.keychainsToLock(at: .now))
        }
        timer.resume()
        return timer
    }

    /// Follows logind's session locks (see `SessionLocks`): a session's lock locks its user's keychain, sleep every
    /// keychain this daemon has open. Says on its log whether logind is followed, and why not.
    public func followSessionLocks() {
        let follow = SessionLocks.follow { event in
            switch event {
            case .lock(let scope): self.lockKeychains(scope)
            case .unlock(let uid) where self.settings.mode == .system || uid == self.daemonUID:
                DaemonLog.report(
                    "user \(uid)'s session unlocked: the keychain stays locked until its passcode is given")
            case .unlock: break
            }
        }
        if let reason = follow {
            DaemonLog.report("session locks are not followed: logind cannot be reached (\(reason))")
        } else {
            DaemonLog.report("following logind's session locks")
        }
    }

    /// Locks the open keychains `scope` names that have a passcode (one without could not be unlocked again by its
    /// user): in user mode only this daemon's user's.
    func lockKeychains(_ scope: SessionLocks.Scope) {
        let homes: [KeychainHome]?
        switch (scope, settings.mode) {
        case (.everyUser, _): homes = nil
        case (.user(let uid), .system): homes = [settings.home(for: uid)]
        case (.user(let uid), .user): homes = uid == daemonUID ? [settings.home(for: uid)] : []
        }
        let reason = scope == .everyUser ? "the machine is going to sleep" : "its user's session locked"
        for home in host.lockThoseWithPasscode(in: homes) {
            DaemonLog.report("locked the keychain in \(home.path): \(reason)")
        }
    }

    /// The service for `peer`: its user's keychain, the groups the registry gives its executable, as `adjust` changes
    /// them (the Secret Service's shared group), keeping what the caller proved in `ledger`.
    ///
    /// A registered app's process that `HardenedRuntime` refuses is served as unregistered, and an unregistered
    /// program only when the path the kernel gives for it names the very file it runs for everyone
    /// (`PeerProcess.isNamed(by:)`: not another file bound over that path in a mount namespace of the caller's): in
    /// both cases `peer.unregisteredBecause` says why.
    func service(
        for peer: inout PeerProcess, adjust: (inout Entitlements) -> Void = { _ in },
        ledger: AuthenticationLedger = AuthenticationLedger()
    ) throws(KeychainError) -> EmbeddedKeychainService {
        if settings.mode == .user && peer.uid != daemonUID {
            throw KeychainError(.missingEntitlement, "this keychain daemon serves user \(daemonUID) only")
        }
        guard let executable = peer.executable, peer.executableFile != nil else {
            // A process the daemon may not look into (another user's hardened client, without CAP_SYS_PTRACE) gets no
            // identity at all: sharing one among all such processes would let any of them read the others' items.
            throw KeychainError(
                .missingEntitlement,
                "the calling program cannot be identified (clavisd needs CAP_SYS_PTRACE to identify hardened clients)")
        }
        let registry = self.registry.current
        var entitlements = registry.entitlements(executable: executable, isRunningFile: peer.isRunning) {
            peer.executableDigest()
        }
        if let app = registry.apps[executable], entitlements.applicationIdentifier == app.applicationIdentifier,
            let refusal = peer.directory.map({ directory in
                HardenedRuntime.refusal(
                    of: directory, pid: peer.pid, pinnedExecutable: app.sha256 == nil ? nil : peer.executableIdentity,
                    trusted: [0, self.registry.owner ?? 0])
            }) ?? "its /proc folder cannot be opened"
        {
            peer.unregisteredBecause = "not treated as \(app.applicationIdentifier): \(refusal)"
            entitlements = AppRegistry.unregistered(executable: executable)
        }
        if entitlements.applicationIdentifier == AppRegistry.unregistered(executable: executable).applicationIdentifier,
            !peer.isNamed(by: executable)
        {
            // Its private group is named by its path: only the file that path names for everyone may use it.
            peer.unregisteredBecause =
                "\(executable) does not name the file it runs for everyone (its mount namespace is its own)"
            throw KeychainError(
                .missingEntitlement,
                "the calling program runs a file that \(executable) does not name for clavisd (another mount"
                    + " namespace, or replaced since it started): restart it, or run it from a path clavisd sees")
        }
        // In user mode every caller is the keychain's own user; in system mode only registered administrators.
        if settings.mode == .user { entitlements.isAdministrator = true }
        adjust(&entitlements)
        // A daemon lives long and serves every keychain of its users: its memory stays within SQLite's page cache
        // rather than growing with the mapped files.
        let registryWatch = self.registry
        return try host.service(
            home: settings.home(for: peer.uid), entitlements: entitlements,
            reason: "clavisd (\(settings.mode.rawValue) mode)", authenticators: authenticators(for: peer),
            ledger: ledger, registeredGroups: { registryWatch.current.heldAccessGroups }, mapsDatabase: false,
            deviceKeyOptions: settings.deviceKeyOptions, readers: KeychainHost.daemonReaders)
    }

    /// Opens the user's keychain at start (user mode), when it exists, so that its sync goes on before any client
    /// asks; a system-mode daemon opens each user's keychain at that user's first request.
    private func resumeSync() {
        guard settings.mode == .user else { return }
        do throws(KeychainError) {
            _ = try host.resumeSync(
                home: settings.home(for: daemonUID), mapsDatabase: false, deviceKeyOptions: settings.deviceKeyOptions,
                readers: KeychainHost.daemonReaders)
        } catch {
            DaemonLog.report("the keychain could not be opened to resume sync: \(error.reason)")
        }
    }

    /// The daemon's own sensor and prompt, for `peer`: the scripted sensor its settings name, else fprintd asked
    /// about the peer's user; `pinentry` when configured.
    private func authenticators(for peer: PeerProcess) -> ServiceAuthenticators {
        let sensor: any BiometricSensor
        if let script = settings.biometryScript {
            sensor = ScriptedSensor(path: script)
        } else {
            sensor = DesktopSensor(uid: peer.uid)
        }
        return ServiceAuthenticators(sensor: sensor, trustedPrompt: settings.pinentry.flatMap(PinentryPrompt.init))
    }
}
