import ClavisTestSupport
import Foundation
import Security
import Testing

/// `git-credential-clavis`, run by the real `git` and on its own: git's credentials become internet passwords laid
/// out as git's macOS helper lays them out, so that Apple's API finds them; expired passwords are not returned.
@Suite(.preparedKeychain) struct GitCredentialHelperTests {
    /// The helper, built next to this test bundle.
    static let helper = URL(fileURLWithPath: ClavisBinary.path).deletingLastPathComponent()
        .appendingPathComponent("git-credential-clavis").path

    /// A fresh keychain folder and a git home that names the helper; the helper runs as this test process's app
    /// (its entitlements), so that in-process calls on the same folder see its items.
    struct GitHome {
        let folder: String
        var keychain: String { folder + "/keychain" }
        var environment: [String: String] {
            [
                "HOME": folder, "XDG_CONFIG_HOME": folder + "/config", "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_TERMINAL_PROMPT": "0", "CLAVIS_HOME": keychain, "CLAVIS_SOCKET": "",
                "XDG_RUNTIME_DIR": folder + "/run", "CLAVIS_ENTITLEMENTS": TestKeychain.home + "/tests.entitlements",
                // git finds `credential.helper=clavis` as `git-credential-clavis` on the PATH.
                "PATH": URL(fileURLWithPath: GitCredentialHelperTests.helper).deletingLastPathComponent().path + ":"
                    + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ]
        }

        init() throws {
            folder = try makeTemporaryFolder("clavis-git")
            let configured = try runProcess(
                "/usr/bin/git", ["config", "--global", "credential.helper", "clavis"],
                environment: environment)
            #expect(configured.status == 0, "\(configured.standardError)")
        }

        func git(_ arguments: [String], _ input: String) throws -> ProcessOutput {
            try runProcess("/usr/bin/git", arguments, environment: environment, input: input)
        }

        func helper(_ action: String, _ input: String) throws -> ProcessOutput {
            try runProcess(GitCredentialHelperTests.helper, [action], environment: environment, input: input)
        }
    }

    @Test func gitStoresFillsAndErasesThroughTheHelper() throws {
        let home = try GitHome()
        defer { try? FileManager.default.removeItem(atPath: home.folder) }
        let approved = try home.git(
            ["credential", "approve"], "protocol=https\nhost=git.example.org\nusername=bob\npassword=pw-4411\n\n")
        #expect(approved.status == 0, "\(approved.standardError)")

        let filled = try home.git(["credential", "fill"], "protocol=https\nhost=git.example.org\n\n")
        #expect(filled.status == 0, "\(filled.standardError)")
        #expect(filled.standardOutput.contains("username=bob\npassword=pw-4411\n"))

        let rejected = try home.git(
            ["credential", "reject"], "protocol=https\nhost=git.example.org\nusername=bob\npassword=pw-4411\n\n")
        #expect(rejected.status == 0, "\(rejected.standardError)")
        let again = try home.git(["credential", "fill"], "protocol=https\nhost=git.example.org\n\n")
        #expect(again.status != 0, "git asks the user (refused here) once the helper has nothing")
        #expect(!again.standardOutput.contains("pw-4411"))
    }

    @Test func aStoredCredentialIsTheInternetPasswordMacOSKeychainCodeFinds() throws {
        let home = try GitHome()
        defer { try? FileManager.default.removeItem(atPath: home.folder) }
        let stored = try home.helper(
            "store",
            "protocol=https\nhost=code.example.com:8443\npath=team/repo.git\nusername=alice\npassword=pw-7702\n"
                + "oauth_refresh_token=rt-31\n\n")
        #expect(stored.status == 0, "\(stored.standardError)")

        let query: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "code.example.com",
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrPort as String: 8443,
            kSecAttrPath as String: "team/repo.git", kSecAttrAccount as String: "alice",
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeDefault,
            kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        let status = withKeychainHome(home.keychain) { SecItemCopyMatching(query as CFDictionary, &result) }
        #expect(status == errSecSuccess)
        #expect((result as? Data).map { String(decoding: $0, as: UTF8.self) } == "pw-7702\noauth_refresh_token=rt-31")
    }

    @Test func anExpiredPasswordIsNotReturnedAndALiveOneComesBackWithItsExpiry() throws {
        let home = try GitHome()
        defer { try? FileManager.default.removeItem(atPath: home.folder) }
        let future = Int(Date().timeIntervalSince1970) + 3600
        let stored = try home.helper(
            "store",
            "protocol=https\nhost=live.example.com\nusername=carol\npassword=pw-1\npassword_expiry_utc=\(future)\n\n")
        #expect(stored.status == 0, "\(stored.standardError)")
        let live = try home.helper("get", "protocol=https\nhost=live.example.com\n\n")
        #expect(live.standardOutput == "username=carol\npassword=pw-1\npassword_expiry_utc=\(future)\n")

        // A password stored earlier whose time has passed (as git's macOS helper writes the expiry).
        let expired: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "old.example.com",
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrAccount as String: "dave",
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeDefault,
            kSecValueData as String: Data("pw-2\npassword_expiry_utc=1000000000".utf8),
        ]
        #expect(withKeychainHome(home.keychain) { SecItemAdd(expired as CFDictionary, nil) } == errSecSuccess)
        let old = try home.helper("get", "protocol=https\nhost=old.example.com\n\n")
        #expect(old.status == 0)
        #expect(old.standardOutput.isEmpty, "\(old.standardOutput)")
    }

    @Test func eraseWithAPasswordRemovesOnlyTheCredentialStoringIt() throws {
        let home = try GitHome()
        defer { try? FileManager.default.removeItem(atPath: home.folder) }
        for user in ["erin", "frank"] {
            let stored = try home.helper(
                "store", "protocol=https\nhost=two.example.com\nusername=\(user)\npassword=pw-\(user)\n\n")
            #expect(stored.status == 0, "\(stored.standardError)")
        }
        let erased = try home.helper("erase", "protocol=https\nhost=two.example.com\npassword=pw-erin\n\n")
        #expect(erased.status == 0, "\(erased.standardError)")
        #expect(
            try home.helper("get", "protocol=https\nhost=two.example.com\nusername=erin\n\n").standardOutput.isEmpty)
        #expect(
            try home.helper("get", "protocol=https\nhost=two.example.com\nusername=frank\n\n").standardOutput
                == "password=pw-frank\n")
    }

    @Test func aCredentialTheHelperAnsweredIsNotStoredAgainAndStoreReplacesAPassword() throws {
        let home = try GitHome()
        defer { try? FileManager.default.removeItem(atPath: home.folder) }
        let first = "protocol=https\nhost=three.example.com\nusername=gina\n"
        #expect(try home.helper("store", first + "password=old\n\n").status == 0)
        // git hands back the state the helper set in `get`: the same credential is not written again.
        #expect(try home.helper("store", first + "password=ignored\nstate[]=clavis:seen=1\n\n").status == 0)
        #expect(try home.helper("get", first + "\n").standardOutput == "password=old\n")
        #expect(try home.helper("store", first + "password=new\n\n").status == 0)
        #expect(try home.helper("get", first + "\n").standardOutput == "password=new\n")
    }

    @Test(arguments: ["garbage\n", "protocol=https\nhost=example.com:port\n\n"])
    func badInputFailsWithAMessageAndStoresNothing(input: String) throws {
        let home = try GitHome()
        defer { try? FileManager.default.removeItem(atPath: home.folder) }
        let result = try home.helper("store", input + "username=h\npassword=pw-9\n\n")
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("git-credential-clavis: bad input"), "\(result.standardError)")
        #expect(!result.standardError.contains("pw-9"))
        #expect(try home.helper("get", "protocol=https\nhost=example.com\n\n").standardOutput.isEmpty)
    }

    @Test func aProtocolGitsMacOSHelperDoesNotStoreIsLeftToOtherHelpers() throws {
        let home = try GitHome()
        defer { try? FileManager.default.removeItem(atPath: home.folder) }
        #expect(try home.helper("store", "protocol=cert\nhost=x\nusername=u\npassword=pw\n\n").status == 0)
        #expect(try home.helper("get", "protocol=cert\nhost=x\n\n").standardOutput.isEmpty)
        #expect(try home.helper("frobnicate", "").status == 0, "unknown actions are ignored, as git asks")
        #expect(try home.helper("get", "").status == 0)
    }
}
