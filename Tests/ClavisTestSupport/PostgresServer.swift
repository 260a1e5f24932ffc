public import ClavisCore
public import ClavisSync
import Foundation
import Glibc

/// A real PostgreSQL server for one test: a fresh cluster in a temporary folder, run by the `postgres` user (the
/// server refuses root), listening only on a Unix socket in that folder, with trust authentication so that a test
/// may log in as any role; stopped and removed when the value goes.
public final class PostgresServer {
    /// The folder holding the cluster and the socket.
    public let folder: String
    /// The superuser the cluster was made with.
    public let administrator = "clavis_admin"

    private static let binaries = "/usr/lib/postgresql/15/bin"

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "clavis-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.run("/bin/chown", ["postgres:postgres", folder])
        try Self.run(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", Self.binaries + "/initdb", "--pgdata", folder + "/data", "--auth", "trust",
                "--username", administrator, "--no-sync", "--no-instructions",
            ])
        // pg_ctl -w returns once the server accepts connections.
        try start()
    }

    /// Stops the server (a server gone away); `start` brings it back with the same data.
    public func stop() throws {
        try Self.run(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", Self.binaries + "/pg_ctl", "--pgdata", folder + "/data", "--mode", "fast",
                "--wait", "stop",
            ])
    }

    /// Starts the server again after `stop`.
    public func start() throws {
        try Self.run(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", Self.binaries + "/pg_ctl", "--pgdata", folder + "/data", "--wait",
                "--log", folder + "/server.log", "--options",
                "-c listen_addresses='' -c unix_socket_directories='\(folder)' -c fsync=off", "start",
            ])
    }

    deinit {
        _ = try? Self.run(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", Self.binaries + "/pg_ctl", "--pgdata", folder + "/data", "--mode", "immediate",
                "--wait", "stop",
            ])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The connection string for `role` (the administrator by default) on database `database`.
    public func connectionString(role: String? = nil, database: String = "postgres") -> String {
        "host=\(folder) dbname=\(database) user=\(role ?? administrator)"
    }

    /// A connection as `role`.
    public func connect(as role: String? = nil) throws(KeychainError) -> SyncDatabase {
        try SyncDatabase(connectionString: connectionString(role: role))
    }

    /// Installs the sync schema and makes `accounts` sync accounts; the administrator's connection.
    @discardableResult
    public func prepareSync(accounts: [String] = ["alice"]) throws -> SyncDatabase {
        let administrator = try connect()
        _ = try SyncServerSchema.install(on: administrator)
        for account in accounts { try SyncServerAccounts.add(account, on: administrator) }
        return administrator
    }

    /// True when this machine can run a server for the tests (Debian's postgresql, a postgres user).
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: binaries + "/initdb")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")
    }

    /// Runs a program to its end; throws with its output when it fails.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String]) throws -> String {
        let (status, output) = try spawn(program, arguments)
        guard status == 0 else {
            throw ProgramFailure(description: "\(program) \(arguments.joined(separator: " ")): \(output)")
        }
        return output
    }

    /// Runs a program to its end (posix_spawn, then waitpid) with `environment` added to this process's, and
    /// returns its exit status (128 + the signal for a killed one) and what it printed on both outputs. Not
    /// Foundation's `Process`, which waits for a descriptor the server `pg_ctl` starts inherits and keeps open; the
    /// output goes through a file for the same reason. The child gets standard input, output and error only.
    public static func spawn(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, output: String)
    {
        let outputPath = FileManager.default.temporaryDirectory.appending(path: "clavis-pg-\(UUID().uuidString).out")
            .path
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw ProgramFailure(description: "cannot create \(outputPath)") }
        defer {
            close(output)
            unlink(outputPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        // Nothing else of this process's goes with the child: a descriptor another test has open for writing (an
        // executable it is copying) would stay open in the server for its whole life, and exec of that file would
        // fail with ETXTBSY.
        guard let closeFrom = Self.addCloseFrom, closeFrom(&actions, 3) == 0 else {
            throw ProgramFailure(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34+)")
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in envp { free(variable) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, program, &actions, nil, argv, envp)
        guard spawned == 0 else { throw ProgramFailure(description: "\(program) could not start: errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // The low seven bits name the signal that killed it; else the next eight are its exit status.
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, text)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not declare.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// A program that exited with a failure, and what it printed.
    public struct ProgramFailure: Error, CustomStringConvertible {
        public var description: String
    }
}
