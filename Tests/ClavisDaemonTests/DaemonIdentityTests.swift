import ClavisCore
import ClavisIPC
import ClavisTestSupport
import Foundation
import Testing

/// Each request is answered for the process that sent it: a socket forked to a child, kept across an exec or passed
/// over `SCM_RIGHTS` never speaks for the registered app at its other end. Attacks run as a normal user against a
/// system-mode clavisd running as its own user.
@Suite(.serialized) final class DaemonIdentityTests {
    let apps: RegisteredAppsFixture

    init() throws {
        apps = try RegisteredAppsFixture()
    }

    /// The attack, in one process: connect, fork; the parent execs the registered app (after a delay), keeping the
    /// socket across the exec; the child (still the unregistered python) waits, then asks for the app's secret.
    private static let connectThenExec =
        RegisteredAppsFixture.askForTheSecret + "\n" + #"""
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
        let read = try apps.asUser(apps.writer, ["find-generic-password", "-a", "me", "-s", "vault", "-w"])
        #expect(read.standardOutput == RegisteredAppsFixture.secret + "\n", "\(read.standardError)")
        let script = apps.folder + "/connect-then-exec.py"
        try Self.connectThenExec.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let request = RegisteredAppsFixture.findRequest
        var outcomes: [String: Int] = [:]
        // 200 tries, 20 at a time: the parent execs after 0–19 ms, the child asks after 0–300 ms, so the child's
        // request lands before, during and after the exec and the daemon's identification of the connection.
        for batch in 0..<10 {
            let tries = try (0..<20).map { index in
                let attempt = batch * 20 + index
                return try apps.startAsUser(
                    "/usr/bin/python3",
                    [
                        script, apps.daemon.socket, request, apps.sleeper, String(Double(attempt % 20) / 1000),
                        String(Double(attempt) * 1.5 / 1000), RegisteredAppsFixture.secret,
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
        let log = try String(contentsOfFile: apps.daemon.state + "/access.log", encoding: .utf8)
        #expect(!log.contains("TEAM.sleeper"))
    }

    /// The registered python app connects, has one request answered as itself, then passes its connected socket
    /// over `SCM_RIGHTS` to an unregistered python, which asks for the secret on it.
    private static let passTheSocket =
        RegisteredAppsFixture.askForTheSecret + "\n" + #"""
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
        let script = apps.folder + "/pass-the-socket.py"
        try Self.passTheSocket.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let output = try apps.asUser(
            apps.python,
            [
                script, apps.daemon.socket, RegisteredAppsFixture.findRequest, "/usr/bin/python3",
                RegisteredAppsFixture.secret,
            ])
        #expect(
            output.standardOutput == "app: answer 4 secret\nreceiver: answer 0 nothing\n", "\(output.standardError)")
    }
}
