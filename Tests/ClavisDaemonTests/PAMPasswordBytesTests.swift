import ClavisTestSupport
import Foundation
import Testing

/// pam_clavis hands a password to the keychain byte for byte, whatever bytes it holds (a line break, any byte but
/// NUL, 64 KiB of them), and never holds up a login: with clavisd stopped it gives up within 2 s. PAM is driven by a
/// Python program over libpam (ctypes), whose conversation answers with exactly the bytes given.
@Suite(.serialized) final class PAMPasswordBytesTests {
    let daemon: TestDaemon
    let clavis: String
    let service = "clavis-pam-bytes-\(getpid())"
    let driver: String

    /// Runs one PAM operation (`authenticate` or `chauthtok`) on `argv[1]` for user `argv[2]`, answering every
    /// prompt with the next of the hexadecimal words on standard input; prints PAM's result and the seconds it took.
    private static let pamDriver = #"""
        import ctypes, sys, time
        from ctypes import CFUNCTYPE, POINTER, Structure, byref, c_char_p, c_int, c_size_t, c_void_p, sizeof
        pam, libc = ctypes.CDLL("libpam.so.0"), ctypes.CDLL(None)
        libc.calloc.restype, libc.calloc.argtypes = c_void_p, [c_size_t, c_size_t]
        libc.strdup.restype, libc.strdup.argtypes = c_void_p, [c_char_p]
        class Message(Structure): _fields_ = [("style", c_int), ("text", c_char_p)]
        class Response(Structure): _fields_ = [("answer", c_void_p), ("code", c_int)]
        Conversation = CFUNCTYPE(c_int, c_int, POINTER(POINTER(Message)), POINTER(POINTER(Response)), c_void_p)
        class Conv(Structure): _fields_ = [("conversation", Conversation), ("data", c_void_p)]
        answers = [bytes.fromhex(answer) for answer in sys.stdin.read().split()]
        def converse(count, messages, responses, data):
            replies = ctypes.cast(libc.calloc(count, sizeof(Response)), POINTER(Response))
            for index in range(count):
                if messages[index].contents.style in (1, 2):
                    replies[index].answer = libc.strdup(answers.pop(0) if answers else b"")
            responses[0] = replies
            return 0
        conversation = Conv(Conversation(converse), None)
        handle = c_void_p()
        assert pam.pam_start(sys.argv[1].encode(), sys.argv[2].encode(), byref(conversation), byref(handle)) == 0
        started = time.monotonic()
        result = getattr(pam, "pam_" + sys.argv[3])(handle, 0)
        print(result, round(time.monotonic() - started, 2), flush=True)
        pam.pam_end(handle, result)
        """#

    init() throws {
        if getpwnam(PAMModuleTests.user) == nil {
            try TestDaemon.run(
                "/usr/sbin/useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", PAMModuleTests.user])
        }
        let staging = try TestDaemon(mode: "user")
        clavis = try staging.copyOfClavis(named: "administrator")
        staging.kill()
        daemon = try TestDaemon(
            mode: "system",
            apps: [
                "clavis.json": [
                    "executable": clavis, "application-identifier": "clavis", "keychain-administrator": true,
                ]
            ], reusing: staging.folder)
        driver = daemon.folder + "/pam-driver.py"
        try Self.pamDriver.write(toFile: driver, atomically: true, encoding: .utf8)
        // Nothing before the module checks the password: every byte given reaches it.
        let options = "clavis=\(clavis) socket=\(daemon.socket)"
        try """
        auth      optional  \(PAMModuleTests.module) \(options)
        auth      required  pam_permit.so
        password  optional  \(PAMModuleTests.module) \(options)
        password  required  pam_permit.so
        """.write(toFile: "/etc/pam.d/" + service, atomically: true, encoding: .utf8)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: "/etc/pam.d/" + service)
        daemon.stop()
    }

    /// Runs `operation` answering with `answers`; PAM's result and the seconds it took.
    private func pam(_ operation: String, _ answers: [[UInt8]]) throws -> (result: Int, seconds: Double) {
        let hex = answers.map { $0.map { String(format: "%02x", $0) }.joined() }
        let output = try runProcess(
            "/usr/bin/python3", [driver, service, PAMModuleTests.user, operation], input: hex.joined(separator: "\n"))
        let fields = output.standardOutput.split(separator: " ")
        return (
            Int(fields.first ?? "") ?? -1,
            Double(fields.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        )
    }

    /// Runs `clavis` as the PAM user.
    private func asUser(_ arguments: [String]) throws -> ProcessOutput {
        try runProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=\(PAMModuleTests.user)", "--regid=\(PAMModuleTests.user)", "--init-groups",
                clavis,
            ] + arguments, environment: ["CLAVIS_SOCKET": daemon.socket, "HOME": "/"])
    }

    private func isUnlocked() throws -> Bool {
        try asUser(["status"]).standardOutput.contains("lock state: unlocked")
    }

    private func lock() throws {
        #expect(try asUser(["lock-keychain"]).status == 0)
        #expect(try !isUnlocked())
    }

    @Test func aLineBreakIsPartOfThePasswordNotItsEnd() throws {
        #expect(try asUser(["set-keychain-password", "-p", "pass"]).status == 0)
        try lock()
        #expect(try pam("authenticate", [Array("pass\nextra".utf8)]).result == 0)
        #expect(try !isUnlocked(), "only the whole password opens the keychain")
        #expect(try pam("authenticate", [Array("pass".utf8)]).result == 0)
        #expect(try isUnlocked())
        // A change to a password with a line break sets all of it.
        #expect(
            try pam("chauthtok", [Array("pass".utf8), Array("new1\nnew2".utf8), Array("new1\nnew2".utf8)]).result == 0)
        try lock()
        #expect(try pam("authenticate", [Array("new1".utf8)]).result == 0)
        #expect(try !isUnlocked())
        #expect(try pam("authenticate", [Array("new1\nnew2".utf8)]).result == 0)
        #expect(try isUnlocked())
    }

    @Test func everyByteButNULIsPartOfThePassword() throws {
        let binary = (1...255).map { UInt8($0) }
        #expect(try asUser(["set-keychain-password", "-p", "start"]).status == 0)
        #expect(try pam("chauthtok", [Array("start".utf8), binary, binary]).result == 0)
        try lock()
        #expect(try pam("authenticate", [Array(binary.dropLast())]).result == 0)
        #expect(try !isUnlocked())
        #expect(try pam("authenticate", [binary]).result == 0)
        #expect(try isUnlocked())
    }

    @Test func a64KiBPasswordNeitherHangsNorUnlocks() throws {
        #expect(try asUser(["set-keychain-password", "-p", "short"]).status == 0)
        try lock()
        let (result, seconds) = try pam("authenticate", [[UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)])
        #expect(result == 0)
        #expect(seconds >= 0 && seconds < 2.5, "took \(seconds) s")
        #expect(try !isUnlocked())
    }

    @Test func withClavisdStoppedTheModuleGivesUpWithinTwoSeconds() throws {
        #expect(try asUser(["set-keychain-password", "-p", "stopped"]).status == 0)
        try lock()
        kill(daemon.pid, SIGSTOP)
        let (result, seconds) = try pam("authenticate", [Array("stopped".utf8)])
        kill(daemon.pid, SIGCONT)
        #expect(result == 0, "the login goes on")
        #expect(seconds >= 1.5 && seconds < 2.5, "took \(seconds) s")
    }
}
