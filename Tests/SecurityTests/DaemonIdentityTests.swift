import ClavisCore
import ClavisIPC
import Foundation
import Testing

/// Each request is answered for the process that sent it: a socket forked to a child, kept across an exec or passed
/// over `SCM_RIGHTS` never speaks for the registered app at its other end. Attacks run as a normal user against a
/// system-mode clavisd running as its own user.
@Suite(.serialized) final class DaemonIdentityTests {
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
            try FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/python3"), to: folder + "/python/python3",
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
            writer, ["add-generic-password", "-a", "me", "-s", "vault", "-w", Self.secret, "--access-group", "TEAM.shared"])
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

    /// Runs `executable` with `arguments` as the second user, a client of the daemon.
    private func asUser(_ executable: String, _ arguments: [String]) throws -> ProcessOutput {
        var environment = ClavisBinary.environment(home: folder + "/unused-home")
        environment["CLAVIS_SOCKET"] = daemon.socket
        return try runProcess(
            "/usr/bin/setpriv",
            ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", executable] + arguments,
            environment: environment)
    }

    /// Starts `executable` with `arguments` as the second user, a client of the daemon; its standard output is the
    /// pipe returned.
    private func startAsUser(_ executable: String, _ arguments: [String]) throws -> (Process, Pipe) {
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

    /// The request body asking for the secret, hexadecimal, as any client would send it.
    private static var findRequest: String {
        let query = ItemQuery(
            itemClass: .genericPassword,
            attributes: [AttributeKey(rawValue: "acct"): .string("me"), AttributeKey(rawValue: "svce"): .string("vault")],
            accessGroups: ["TEAM.shared"], limit: .one, returnsSecret: true)
        var writer = ByteWriter()
        Request.find(query).encode(to: &writer)
        return writer.bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Python: sends the request (hex in argv[2]) on socket `s` until it is answered (sent again while the daemon
    /// answers `sendAgain`), and prints the answer's kind and whether it holds the secret.
    private static let askForTheSecret = #"""
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

    /// The attack, in one process: connect, fork; the parent execs the registered app (after a delay), keeping the
    /// socket across the exec; the child (still the unregistered python) waits, then asks for the app's secret.
    private static let connectThenExec = askForTheSecret + "\n" + #"""
        path, body, app = sys.argv[1], bytes.fromhex(sys.argv[2]), sys.argv[3]
        parent_delay, child_delay = float(sys.argv[4]), float(sys.argv[5])
        SECRET = sys.argv[6].encode()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        s.set_inheritable(True)
        child = os.fork()
        if child:
            time.sleep(parent_delay)
            os.execv(app, [app, "2"])
        time.sleep(child_delay)
        print(ask(s, body), flush=True)
        """#

    @Test func aSocketForkedBeforeAnExecNeverSpeaksForTheAppItsParentBecame() throws {
        // Positive control: the registered app reads the secret, so the request below is the one that would.
        let read = try asUser(writer, ["find-generic-password", "-a", "me", "-s", "vault", "-w"])
        #expect(read.standardOutput == Self.secret + "\n", "\(read.standardError)")
        let script = folder + "/connect-then-exec.py"
        try Self.connectThenExec.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let request = Self.findRequest
        var outcomes: [String: Int] = [:]
        // 200 tries, 20 at a time: the parent execs after 0–19 ms, the child asks after 0–300 ms, so the child's
        // request lands before, during and after the exec and the daemon's identification of the connection.
        for batch in 0..<10 {
            let tries = try (0..<20).map { index in
                let attempt = batch * 20 + index
                return try startAsUser(
                    "/usr/bin/python3",
                    [
                        script, daemon.socket, request, sleeper, String(Double(attempt % 20) / 1000),
                        String(Double(attempt) * 1.5 / 1000), Self.secret,
                    ])
            }
            for (process, output) in tries {
                let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                outcomes[said.trimmingCharacters(in: .whitespacesAndNewlines), default: 0] += 1
            }
        }
        #expect(outcomes.filter { $0.key.hasSuffix(" secret") }.isEmpty, "\(outcomes)")
        // The child was answered, as itself: not found (status -25300) for python's own group.
        #expect(outcomes["answer 0 nothing", default: 0] == 200, "\(outcomes)")
        // The access log files every one of those requests under python, none under the app.
        let log = try String(contentsOfFile: daemon.state + "/access.log", encoding: .utf8)
        #expect(!log.contains("TEAM.sleeper"))
    }

    /// The registered python app connects, has one request answered as itself, then passes its connected socket
    /// over `SCM_RIGHTS` to an unregistered python, which asks for the secret on it.
    private static let passTheSocket = askForTheSecret + "\n" + #"""
        path, body, unregistered = sys.argv[1], bytes.fromhex(sys.argv[2]), sys.argv[3]
        SECRET = sys.argv[4].encode()
        if len(sys.argv) > 5:
            # The unregistered receiver: takes the socket and asks on it.
            receiver = socket.socket(fileno=int(sys.argv[5]))
            message, fds, _, _ = socket.recv_fds(receiver, 1, 1)
            print("receiver:", ask(socket.socket(fileno=fds[0]), body), flush=True)
            sys.exit(0)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        print("app:", ask(s, body), flush=True)
        mine, theirs = socket.socketpair()
        theirs.set_inheritable(True)
        child = os.fork()
        if child == 0:
            os.execv(unregistered, [unregistered] + sys.argv[:5] + [str(theirs.fileno())])
        socket.send_fds(mine, [b"s"], [s.fileno()])
        os.waitpid(child, 0)
        """#

    @Test func aSocketPassedOverSCMRightsSpeaksForItsReceiver() throws {
        let script = folder + "/pass-the-socket.py"
        try Self.passTheSocket.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let output = try asUser(python, [script, daemon.socket, Self.findRequest, "/usr/bin/python3", Self.secret])
        #expect(output.standardOutput == "app: answer 4 secret\nreceiver: answer 0 nothing\n", "\(output.standardError)")
    }
}
