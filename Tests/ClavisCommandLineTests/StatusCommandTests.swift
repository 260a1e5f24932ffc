import ClavisTestSupport
import Foundation
import Testing

/// `clavis status`: where the keychain is reached and why, its lock state, and the caller's identity.
@Suite(.preparedKeychain) struct StatusCommandTests {
    @Test func statusNamesTheEmbeddedKeychainItsStateAndTheCallersGroups() throws {
        let folder = try makeTemporaryFolder("clavis-status")
        let home = folder + "/home"
        let plain = try ClavisBinary.run(["status"], home: home)
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(
            plain.standardOutput.contains(
                "mode: embedded (no daemon is configured or listening; keychain folder from CLAVIS_HOME)"))
        #expect(plain.standardOutput.contains("keychain: \"\(home)\""))
        #expect(plain.standardOutput.contains("lock state: unlocked"))
        #expect(plain.standardOutput.contains("passcode: none"))
        #expect(plain.standardOutput.contains("access groups: \"clavis\""))

        let entitlements = try writeEntitlements(
            in: folder, name: "app", applicationIdentifier: "TEAM.app", groups: ["group.shared"])
        #expect(try ClavisBinary.run(["set-keychain-password", "-p", "2468"], home: home).status == 0)
        let json = try ClavisBinary.run(
            ["--json", "status"], home: home, environment: ["CLAVIS_ENTITLEMENTS": entitlements])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["mode"] as? String == "embedded")
        #expect(object["location"] as? String == home)
        #expect(object["hasPasscode"] as? Bool == true)
        #expect(object["lockState"] as? String == "before-first-unlock", "a new process starts before first unlock")
        #expect(object["applicationIdentifier"] as? String == "TEAM.app")
        #expect(object["accessGroups"] as? [String] == ["group.shared", "TEAM.app"])
        #expect((object["reason"] as? String)?.contains("entitlements from CLAVIS_ENTITLEMENTS") == true)
    }

    @Test func aConfiguredDaemonThatDoesNotAnswerIsNotAvailableNamingItsSocket() throws {
        let folder = try makeTemporaryFolder("clavis-no-daemon")
        let socket = folder + "/nobody.sock"
        for arguments in [["status"], ["find-generic-password", "-s", "anything"]] {
            let run = try ClavisBinary.run(arguments, home: folder + "/home", environment: ["CLAVIS_SOCKET": socket])
            #expect(run.status == 53, "errSecNotAvailable's low byte")
            #expect(run.standardError.contains("no keychain daemon answers at \(socket)"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/home"), "no embedded keychain was made instead")
    }
}
