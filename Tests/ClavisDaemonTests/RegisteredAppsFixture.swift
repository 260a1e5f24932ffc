import ClavisCore
import ClavisIPC
import ClavisTestSupport
import Foundation
import Testing

/// What the attack tests share: a normal user, a system-mode clavisd running as its own user with three registered
/// apps in `TEAM.shared` (each a copy of a real program: `clavis`, `sleep`, `python3`), and a secret the user stored
/// there through the `clavis` copy.
final class RegisteredAppsFixture {
    let user: SecondUser
    let folder: String
    /// A registered copy of `clavis` (`TEAM.writer`, group `TEAM.shared`), which stores the secret.
    let writer: String
    /// A registered copy of `sleep` (`TEAM.sleeper`, group `TEAM.shared`): the app the attacks borrow.
    let sleeper: String
    /// A registered copy of `python3` (`TEAM.python`, group `TEAM.shared`): an app that hands its socket on.
    let python: String
    let daemon: TestDaemon
    static let secret = "borrowed-identity-secret-4711"

    init() throws {
        user = try SecondUser()
        folder = try makeTemporaryFolder("clavis-identity")
        chmod(folder, 0o755)
        writer = try Self.copy(ClavisBinary.path, to: folder + "/writer/clavis")
        sleeper = try Self.copy("/bin/sleep", to: folder + "/sleeper/sleep")
        python = try Self.copy(
            try FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/python3"),
            to: folder + "/python/python3",
            relativeTo: "/usr/bin")
        func app(_ executable: String, _ identifier: String) -> [String: Any] {
            ["executable": executable, "application-identifier": identifier, "keychain-access-groups": ["TEAM.shared"]]
        }
        daemon = try TestDaemon(
            mode: "system",
            apps: [
                "writer.json": app(writer, "TEAM.writer"), "sleeper.json": app(sleeper, "TEAM.sleeper"),
                "python.json": app(python, "TEAM.python"),
            ])
        let added = try asUser(
            writer,
            ["add-generic-password", "-a", "me", "-s", "vault", "-w", Self.secret, "--access-group", "TEAM.shared"])
        try #require(added.status == 0, "\(added.standardError)")
    }

    deinit {
        daemon.stop()
        user.remove()
    }

    /// Copies `source` (a name relative to `relativeTo` when not absolute) to `destination`, mode 0755.
    private static func copy(_ source: String, to destination: String, relativeTo: String = "/") throws -> String {
        let path = source.hasPrefix("/") ? source : relativeTo + "/" + source
        try FileManager.default.createDirectory(
            atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: destination)
        chmod(destination, 0o755)
        return destination
    }

    /// Runs `executable` with `arguments` (through `wrapper` first, such as `strace`) as the user, a client of the
    /// daemon, with `environment` added.
    func asUser(
        _ executable: String, _ arguments: [String], environment added: [String: String] = [:],
        wrapper: [String] = []
    ) throws -> ProcessOutput {
        var environment = ClavisBinary.environment(home: folder + "/unused-home", added)
        environment["CLAVIS_SOCKET"] = daemon.socket
        return try runProcess(
            "/usr/bin/setpriv",
            ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--"] + wrapper + [executable] + arguments,
            environment: environment)
    }

    /// Starts `executable` with `arguments` as the user, a client of the daemon; its standard output is the pipe
    /// returned.
    func startAsUser(_ executable: String, _ arguments: [String]) throws -> (Process, Pipe) {
        var environment = ProcessInfo.processInfo.environment
        environment["CLAVIS_SOCKET"] = daemon.socket
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments =
            ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", executable] + arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// The access log's lines so far.
    func accessLog() throws -> [Substring] {
        try String(contentsOfFile: daemon.state + "/access.log", encoding: .utf8).split(separator: "\n")
    }

    /// The request body asking for the secret, hexadecimal, as any client would send it.
    static var findRequest: String { findRequest(service: "vault", groups: ["TEAM.shared"]) }

    /// The request body asking for the secret of account `me` and `service` in `groups` (every group of the caller
    /// when `nil`), hexadecimal.
    static func findRequest(service: String, groups: [String]?) -> String {
        let query = ItemQuery(
            itemClass: .genericPassword,
            attributes: [
                AttributeKey(rawValue: "acct"): .string("me"), AttributeKey(rawValue: "svce"): .string(service),
            ],
            accessGroups: groups, limit: .one, returnsSecret: true)
        var writer = ByteWriter()
        Request.find(query).encode(to: &writer)
        return writer.bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Python: sends the request (hex in argv[2]) on socket `s` until it is answered (sent again while the daemon
    /// answers `sendAgain`), and prints the answer's kind and whether it holds the secret.
    static let askForTheSecret = #"""
        import os, socket, struct, sys, time
        def ask(s, body):
            for attempt in range(1, 6):
                s.sendall(b"CLVS" + struct.pack(">BII", 4, attempt, len(body)) + body)
                header = b""
                while len(header) < 13:
                    more = s.recv(13 - len(header))
                    if not more: return "closed"
                    header += more
                length = struct.unpack(">I", header[9:13])[0]
                answer = b""
                while len(answer) < length:
                    more = s.recv(length - len(answer))
                    if not more: return "closed"
                    answer += more
                if answer[0] == 24: continue
                return "answer %d %s" % (answer[0], "secret" if SECRET in answer else "nothing")
            return "sent again 5 times"
        """#

}
