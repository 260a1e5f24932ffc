import ClavisTestSupport
import Foundation
import Testing

/// pam_clavis through the real PAM stack (`pamtester`, Debian's, on a service file of the test's own): login with the
/// right password unlocks the user's keychain in a system-mode clavisd, a wrong one leaves it locked (the module is
/// reached only once pam_unix accepted the password, so the keychain never sees it), and a password change re-wraps
/// the keychain with the new password.
@Suite(.serialized, .preparedKeychain) struct PAMModuleTests {
    static let user = "clavispamtest"
    static let module = URL(fileURLWithPath: ClavisBinary.path).deletingLastPathComponent()
        .appendingPathComponent("libpam_clavis.so").path

    /// Runs `command` as the test user with `input` on its standard input.
    private func asUser(_ command: [String], input: String = "", socket: String) throws -> ProcessOutput {
        try runProcess(
            "/usr/bin/setpriv", ["--reuid=\(Self.user)", "--regid=\(Self.user)", "--init-groups"] + command,
            environment: ["CLAVIS_SOCKET": socket, "HOME": "/"], input: input)
    }

    /// Creates the test user (once) with `password` as its login password.
    private func makeUser(password: String) throws {
        if getpwnam(Self.user) == nil {
            try TestDaemon.run("/usr/sbin/useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", Self.user])
        }
        let changed = try runProcess("/usr/sbin/chpasswd", [], input: "\(Self.user):\(password)\n")
        #expect(changed.status == 0, "\(changed.standardError)")
    }

    @Test func loginUnlocksAWrongPasswordDoesNotAndAPasswordChangeRewraps() throws {
        try makeUser(password: "login-pw-1")
        let staging = try TestDaemon(mode: "user")
        let clavis = try staging.copyOfClavis(named: "administrator")
        staging.kill()
        let daemon = try TestDaemon(
            mode: "system",
            apps: [
                "clavis.json": [
                    "executable": clavis, "application-identifier": "clavis", "keychain-administrator": true,
                ]
            ], reusing: staging.folder)
        defer { daemon.stop() }
        let service = "clavis-pam-test-\(getpid())"
        let serviceFile = "/etc/pam.d/" + service
        let options = "clavis=\(clavis) socket=\(daemon.socket)"
        try """
        auth      [success=1 default=ignore]  pam_unix.so
        auth      requisite                   pam_deny.so
        auth      optional                    \(Self.module) \(options)
        password  optional                    \(Self.module) \(options)
        password  required                    pam_permit.so
        """.write(toFile: serviceFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: serviceFile) }

        func lockState() throws -> String {
            let status = try asUser([clavis, "status"], socket: daemon.socket)
            return status.standardOutput.split(separator: "\n").first { $0.hasPrefix("lock state:") }.map(String.init)
                ?? status.standardError
        }
        let set = try asUser([clavis, "set-keychain-password"], input: "login-pw-1\n", socket: daemon.socket)
        #expect(set.status == 0, "\(set.standardError)")
        #expect(try asUser([clavis, "lock-keychain"], socket: daemon.socket).status == 0)
        #expect(try lockState() == "lock state: locked")

        let wrong = try runProcess("/usr/bin/pamtester", [service, Self.user, "authenticate"], input: "wrong-pw\n")
        #expect(wrong.status != 0)
        #expect(try lockState() == "lock state: locked")
        let afterWrong = try asUser([clavis, "status"], socket: daemon.socket)
        #expect(!afterWrong.standardOutput.contains("refused"), "no passcode attempt was spent")

        let login = try runProcess("/usr/bin/pamtester", [service, Self.user, "authenticate"], input: "login-pw-1\n")
        #expect(login.status == 0, "\(login.standardError)")
        #expect(try lockState() == "lock state: unlocked")

        let change = try runProcess(
            "/usr/bin/pamtester", [service, Self.user, "chauthtok"], input: "login-pw-1\nlogin-pw-2\nlogin-pw-2\n")
        #expect(change.status == 0, "\(change.standardError)")
        #expect(try asUser([clavis, "lock-keychain"], socket: daemon.socket).status == 0)
        let old = try asUser([clavis, "unlock-keychain"], input: "login-pw-1\n", socket: daemon.socket)
        #expect(old.status == 51, "the old password no longer opens the keychain: \(old.standardError)")
        let new = try asUser([clavis, "unlock-keychain"], input: "login-pw-2\n", socket: daemon.socket)
        #expect(new.status == 0, "\(new.standardError)")
        #expect(try lockState() == "lock state: unlocked")
    }
}
