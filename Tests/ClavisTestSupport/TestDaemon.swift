import Foundation

/// A real clavisd for a test: its own socket, state and registry in a temporary folder, started as a dedicated
/// system user (system mode; with `CAP_SYS_PTRACE`, as its unit grants, to identify hardened clients) or as this
/// user (user mode), stopped and its folder removed by `stop()`.
public final class TestDaemon {
    /// The user system-mode daemons run as.
    public static let user = "clavis"

    public let folder: String
    public let socket: String
    public let state: String
    public let registry: String
    private let process = Process()
    /// The daemon's process id.
    public var pid: Int32 { process.processIdentifier }
    private let log = Pipe()
    /// What the daemon said (standard error) so far, and how far `waitForLog` has looked into it.
    private var said = ""
    private var seen: String.Index?

    /// Starts a daemon in `mode` ("system" or "user") with `apps` registered (file name → registration), in a new
    /// folder or the one of an earlier daemon (`reusing`), with `options` added to its command line (files they
    /// name must be usable by the daemon's user: `giveToDaemonUser`) and `environment` to its environment, and
    /// returns once it listens (it says so on standard error before it accepts anything).
    ///
    /// A user-mode daemon runs as `owner` when one is given (a normal user, without capabilities, as the user unit
    /// starts it), its folders and registry then that user's.
    public init(
        mode: String, apps: [String: [String: Any]] = [:], reusing existing: String? = nil, options: [String] = [],
        environment: [String: String] = [:], owner: SecondUser? = nil
    ) throws {
        folder = try existing ?? makeTemporaryFolder("clavisd")
        chmod(folder, 0o755)
        socket = folder + "/run/clavisd.sock"
        state = folder + "/state"
        registry = folder + "/apps.d"
        for path in [folder + "/run", state, registry] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        for (name, app) in apps {
            try JSONSerialization.data(withJSONObject: app).write(to: URL(fileURLWithPath: registry + "/" + name))
        }
        let daemon = ClavisBinary.sibling("clavisd")
        let arguments = ["--\(mode)", "--socket", socket, "--state", state, "--registry", registry] + options
        if mode == "system" {
            try Self.ensureUser()
            for path in [folder + "/run", state] { try Self.run("/bin/chown", [Self.user, path]) }
            chmod(state, 0o700)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                [
                    "--reuid=\(Self.user)", "--regid=\(Self.user)", "--clear-groups", "--inh-caps=+sys_ptrace",
                    "--ambient-caps=+sys_ptrace", daemon,
                ] + arguments
        } else if let owner {
            try Self.run("/bin/chown", ["-R", "\(owner.uid):\(owner.gid)", folder])
            chmod(state, 0o700)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                [
                    "--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--inh-caps=-all",
                    "--bounding-set=-all", "--", daemon,
                ] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: daemon)
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The daemon prints "listening on" once its socket accepts connections: read up to that line.
        guard waitForLog("listening on").contains("listening on") else {
            throw DaemonFailure(message: "clavisd did not start: " + said)
        }
    }

    /// Waits for the daemon to say `text` (on standard error) after what earlier waits found, and returns what it said
    /// from there on; the text is missing from it when the daemon ended, or said nothing more for `seconds`.
    public func waitForLog(_ text: String, seconds: Int32 = 30) -> String {
        let descriptor = log.fileHandleForReading.fileDescriptor
        while true {
            let start = seen ?? said.startIndex
            if let found = said[start...].range(of: text) {
                seen = found.upperBound
                return String(said[start...])
            }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            var buffer = [UInt8](repeating: 0, count: 4096)
            guard poll(&ready, 1, seconds * 1000) == 1 else { return String(said[start...]) }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return String(said[start...]) }
            said += String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    /// Stops the daemon and removes its folder.
    public func stop() {
        terminate()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Stops the daemon (SIGTERM) and waits for it, keeping its folder.
    public func terminate() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// True once the daemon has exited by itself with status 0 (not ended by a signal).
    public var exitedCleanly: Bool {
        !process.isRunning && process.terminationReason == .exit && process.terminationStatus == 0
    }

    /// Kills the daemon at once (SIGKILL) and waits for it.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs `clavis` (or the copy at `executable`) as a client of this daemon.
    public func client(
        _ arguments: [String], executable: String = ClavisBinary.path, environment: [String: String] = [:],
        input: String? = nil
    ) throws -> ProcessOutput {
        var merged = ClavisBinary.environment(home: folder + "/unused-embedded-home", environment)
        merged["CLAVIS_SOCKET"] = socket
        return try runProcess(executable, arguments, environment: merged, input: input)
    }

    /// A copy of `clavis` at `folder/name/clavis`: another executable, so another identity.
    public func copyOfClavis(named name: String) throws -> String {
        let directory = folder + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/clavis"
        try FileManager.default.copyItem(atPath: ClavisBinary.path, toPath: path)
        return path
    }

    public struct DaemonFailure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        /// A failure that says `message`.
        public init(message: String) {
            self.message = message
        }
    }

    /// Makes `path` (a scripted sensor's file, which the sensor rewrites) the system-mode daemon's user's.
    public static func giveToDaemonUser(_ path: String) throws {
        try ensureUser()
        try run("/bin/chown", [user, path])
    }

    /// Creates the daemon's system user once.
    private static func ensureUser() throws {
        if getpwnam(user) != nil { return }
        let added = try runProcess(
            "/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
        // Another suite may have created it at the same moment.
        guard added.status == 0 || getpwnam(user) != nil else {
            throw DaemonFailure(message: "useradd \(user) failed: \(added.standardError)")
        }
    }

    @discardableResult
    public static func run(_ path: String, _ arguments: [String]) throws -> ProcessOutput {
        let output = try runProcess(path, arguments)
        guard output.status == 0 else {
            throw DaemonFailure(message: "\(path) \(arguments) failed: \(output.standardError)")
        }
        return output
    }
}
