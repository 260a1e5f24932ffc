import ClavisCore
import ClavisServer
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// clavisd: the keychain daemon. Clients (Security, LocalAuthentication, clavis) reach it through CLAVIS_SOCKET, the
// user socket or the system socket; it identifies each from the kernel and answers for its groups only.

let usage = """
    Usage: clavisd --system | --user [--socket PATH] [--state DIR] [--registry DIR] [--auto-lock MINUTES]
                   [--biometry-script PATH] [--pinentry PROGRAM] [--access-log-size KIB]
                   [--device-key tpm|file] [--tpm-pcrs LIST] [--no-secret-service]
        --system   one daemon for every local user, as a dedicated user: keychains in /var/lib/clavis/<uid>,
                   socket /run/clavis/clavisd.sock, apps in /etc/clavis/apps.d (needs CAP_SYS_PTRACE to identify
                   hardened clients)
        --user     one daemon for this user: the user's keychain ($XDG_DATA_HOME/clavis), socket
                   $XDG_RUNTIME_DIR/clavis/clavisd.sock, apps in $XDG_CONFIG_HOME/clavis/apps.d
        --auto-lock MINUTES   lock a keychain nobody used for that long (its WhenUnlocked items close)
        --biometry-script PATH   the scripted biometric sensor (tests, developers); fprintd otherwise. A client's
                   own CLAVIS_BIOMETRY_SCRIPT never counts
        --pinentry PROGRAM   ask for passcodes with this pinentry program (the client's GPG_TTY, TERM, DISPLAY and
                   locale are passed to it), so that clients never see them
        --access-log-size KIB   rotate the access log (access.log in the state folder) past this size; two
                   files are kept (default 8192: 8 MiB each)
        --device-key tpm|file   bind the device key of a keychain created from now on to the TPM (sealed in
                   device.tpm; reached through CLAVIS_TPM_TCTI, default device:/dev/tpmrm0) or to a file (device.key,
                   the default); an existing keychain keeps its binding
        --tpm-pcrs LIST   seal a new TPM-bound device key to these SHA-256 PCRs' current values (e.g. 0,7)
        --no-secret-service   user mode: do not serve the freedesktop Secret Service (org.freedesktop.secrets) on
                   the session bus, which the daemon otherwise does when the bus is reachable and the name is free
    Every request is recorded there (who, what, which items by reference, the status; never a value or a
    secret) and copied to the systemd journal when one runs; clavis log shows a user their own entries.
    With systemd socket activation (LISTEN_FDS) the socket passed is used; readiness is notified (Type=notify).
    """

func fail(_ message: String, status: Int32 = 1) -> Never {
    DaemonLog.report(message)
    exit(status)
}

func environment(_ name: String) -> String? {
    guard let raw = getenv(name) else { return nil }
    let value = String(cString: raw)
    return value.isEmpty ? nil : value
}

/// Creates `path` and its missing parents with `mode` (existing folders are left as they are).
func makeFolders(_ path: String, mode: mode_t) {
    var prefix = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
        prefix += "/" + component
        mkdir(prefix, mode)
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
var mode: DaemonSettings.Mode?
var options: [String: String] = [:]
var servesSecretService = true
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--system": mode = .system
    case "--user": mode = .user
    case "--no-secret-service": servesSecretService = false
    case "--socket", "--state", "--registry", "--auto-lock", "--biometry-script", "--pinentry", "--access-log-size",
        "--device-key", "--tpm-pcrs":
        guard let value = arguments.first else { fail("\(argument) needs a value\n\(usage)", status: 2) }
        arguments.removeFirst()
        options[argument] = value
    case "--help", "-h":
        print(usage)
        exit(0)
    default: fail("unknown option \(argument)\n\(usage)", status: 2)
    }
}
guard let mode else { fail("choose --system or --user\n\(usage)", status: 2) }
var autoLock: Duration?
if let minutes = options["--auto-lock"] {
    guard let count = Int(minutes), count > 0 else { fail("--auto-lock takes a number of minutes", status: 2) }
    autoLock = .seconds(count * 60)
}
var accessLogLimit = AccessLog.defaultLimit
if let size = options["--access-log-size"] {
    guard let kibibytes = Int(size), kibibytes >= 4, kibibytes <= 1 << 30 else {
        fail("--access-log-size takes a number of KiB (4 at least)", status: 2)
    }
    accessLogLimit = kibibytes * 1024
}

ProcessLimits.disableCoreDumps()
// Before any thread starts: SIGTERM and SIGINT wait for the thread that stops the daemon (StopSignals).
StopSignals.block()
signal(SIGPIPE, SIG_IGN)
// Request bodies are counted against a budget (README, "The daemon's limits"): memory a refused or answered one held
// goes back to the system when it is freed, rather than staying in one of the connection threads' malloc arenas
// (glibc otherwise raises its mmap threshold after the first large free, up to 32 MiB).
ProcessLimits.returnLargeFrees()
// Each process identified on a connection holds two descriptors (its executable and its /proc folder): up to 64
// connections of 4 processes each for every user.
ProcessLimits.raiseOpenFileLimit(to: 65536)
let deviceKeyOptions: DeviceKeyOptions
do throws(KeychainError) {
    deviceKeyOptions = try DeviceKeyOptions(
        binding: options["--device-key"], tcti: environment("CLAVIS_TPM_TCTI"), pcrs: options["--tpm-pcrs"])
} catch {
    fail(error.reason, status: 2)
}
let home = environment("HOME") ?? "/"
var settings: DaemonSettings
switch mode {
case .system:
    settings = DaemonSettings(
        mode: .system, socketPath: options["--socket"] ?? "/run/clavis/clavisd.sock",
        state: options["--state"] ?? "/var/lib/clavis", registryFolder: options["--registry"] ?? "/etc/clavis/apps.d",
        autoLock: autoLock, biometryScript: options["--biometry-script"], pinentry: options["--pinentry"],
        accessLogLimit: accessLogLimit)
case .user:
    let runtime = environment("XDG_RUNTIME_DIR") ?? "/run/user/\(getuid())"
    let data = environment("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
    let config = environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
    settings = DaemonSettings(
        mode: .user, socketPath: options["--socket"] ?? runtime + "/clavis/clavisd.sock",
        state: options["--state"] ?? data + "/clavis",
        registryFolder: options["--registry"] ?? config + "/clavis/apps.d", autoLock: autoLock,
        biometryScript: options["--biometry-script"], pinentry: options["--pinentry"],
        accessLogLimit: accessLogLimit)
}
settings.deviceKeyOptions = deviceKeyOptions

let listening: Int32
if let passed = ServiceManager.passedSocket() {
    listening = passed
    DaemonLog.report("\(mode.rawValue) mode, on the socket systemd passed")
} else {
    let folder = String(
        settings.socketPath[..<(settings.socketPath.lastIndex(of: "/") ?? settings.socketPath.startIndex)])
    if !folder.isEmpty { makeFolders(folder, mode: mode == .system ? 0o755 : 0o700) }
    do throws(KeychainError) {
        listening = try KeychainDaemon.listen(on: settings.socketPath, mode: mode)
    } catch {
        fail(error.reason)
    }
    DaemonLog.report("\(mode.rawValue) mode, listening on \(settings.socketPath)")
}
if mode == .system { makeFolders(settings.state, mode: 0o700) }
let daemon = KeychainDaemon(settings: settings, listening: listening)
// A stop records the answers given before it, then exits at once: a request still running is as if killed (a write
// is one SQLite transaction, committed or not; its client sees the connection close).
StopSignals.whenReceived { signal in
    daemon.accessLog.flush()
    DaemonLog.report("stopped by \(signal == SIGTERM ? "SIGTERM" : "SIGINT")")
    _exit(0)
}
daemon.followSessionLocks()
if mode == .user {
    if servesSecretService {
        daemon.serveSecretService()
    } else {
        DaemonLog.report("the Secret Service is not served (--no-secret-service): org.freedesktop.secrets is free")
    }
}
ServiceManager.notifyReady()
daemon.run()
