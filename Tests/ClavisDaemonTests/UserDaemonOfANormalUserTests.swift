import ClavisTestSupport
import Foundation
import Testing

/// `clavisd --user` started by a normal user, without capabilities, as the user unit starts it, serves that user's
/// programs: `clavis`, `git-credential-clavis`, a program on Apple's API and `secret-tool`. (Its clients are hardened,
/// and a daemon without `CAP_SYS_PTRACE` can look into them only once they let their own user do so.)
@Suite(.serialized) final class UserDaemonOfANormalUserTests {
    let user: SecondUser
    let bus: PrivateBus
    let daemon: TestDaemon

    init() throws {
        user = try SecondUser()
        bus = try PrivateBus("user-daemon-bus", kind: .session)
        daemon = try TestDaemon(mode: "user", environment: bus.environment, owner: user)
        #expect(daemon.waitForLog("org.freedesktop.secrets").contains("owns org.freedesktop.secrets"))
    }

    deinit {
        daemon.stop()
        bus.stop()
        user.remove()
    }

    /// Runs `executable` as the user, a client of the daemon and of the bus.
    private func asUser(_ executable: String, _ arguments: [String], input: String? = nil) throws -> ProcessOutput {
        var environment = ClavisBinary.environment(home: daemon.folder + "/unused-home", bus.environment)
        environment["CLAVIS_SOCKET"] = daemon.socket
        return try runProcess(
            "/usr/bin/setpriv",
            ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", executable] + arguments,
            environment: environment, input: input)
    }

    @Test func theCommandLineServesTheUser() throws {
        let status = try asUser(ClavisBinary.path, ["status"])
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput.contains("mode: daemon"))
        #expect(status.standardOutput.contains("exe:" + ClavisBinary.path))
        #expect(
            try asUser(ClavisBinary.path, ["add-generic-password", "-a", "me", "-s", "mail", "-w", "s3"]).status == 0)
        let read = try asUser(ClavisBinary.path, ["find-generic-password", "-a", "me", "-s", "mail", "-w"])
        #expect(read.standardOutput == "s3\n", "\(read.standardError)")
        // The files are the user's own.
        var info = stat()
        #expect(stat(daemon.state + "/keychain.db", &info) == 0 && info.st_uid == user.uid)
    }

    @Test func gitsCredentialHelperServesTheUser() throws {
        let helper = URL(fileURLWithPath: ClavisBinary.path).deletingLastPathComponent()
            .appendingPathComponent("git-credential-clavis").path
        let stored = try asUser(
            helper, ["store"], input: "protocol=https\nhost=git.example\nusername=bob\npassword=pat-123\n\n")
        #expect(stored.status == 0, "\(stored.standardError)")
        let got = try asUser(helper, ["get"], input: "protocol=https\nhost=git.example\n\n")
        #expect(got.standardOutput.contains("password=pat-123"), "\(got.standardError)")
    }

    @Test func aProgramOnApplesAPIServesTheUser() throws {
        // clavis-fuzz calls SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete; with CLAVIS_SOCKET
        // set, through the daemon. The access log shows its calls answered for it, most of them successfully.
        let fuzz = try asUser(ClavisBinary.sibling("clavis-fuzz"), ["--rounds", "200", "--seed", "3"])
        #expect(fuzz.status == 0, "\(fuzz.standardError)")
        let log = try String(contentsOfFile: daemon.state + "/access.log", encoding: .utf8)
        let answered = log.split(separator: "\n").filter {
            $0.contains("\"executable\":\"\(ClavisBinary.sibling("clavis-fuzz"))\"") && $0.contains("\"status\":0,")
        }
        #expect(answered.count >= 10, "\(log.suffix(2000))")
    }

    @Test func secretToolServesTheUser() throws {
        let stored = try asUser(
            "/usr/bin/secret-tool", ["store", "--label", "Mail", "service", "mail", "user", "me"], input: "tool-pw")
        #expect(stored.status == 0, "\(stored.standardError)")
        let found = try asUser("/usr/bin/secret-tool", ["lookup", "service", "mail", "user", "me"])
        #expect(found.standardOutput == "tool-pw", "\(found.standardError)")
    }
}
