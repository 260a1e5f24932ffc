import ClavisTestSupport
import Foundation
import Testing

/// `clavis app register` grants groups to whatever file is at a path: it refuses, unless pinned, a file another user
/// could change or replace, and it records every key of the entitlements file.
@Suite(.serialized) final class AppRegistrationTests {
    let folder: String
    let registry: String

    init() throws {
        folder = try makeTemporaryFolder("clavis-registration")
        chmod(folder, 0o755)
        registry = folder + "/apps.d"
    }

    private func register(_ executable: String, entitlements: String, pin: Bool = false) throws -> ProcessOutput {
        try ClavisBinary.run(
            ["app", "register", "--executable", executable, "--entitlements", entitlements, "--registry", registry]
                + (pin ? ["--pin"] : []), home: folder + "/home")
    }

    @Test func anExecutableAnotherUserCouldReplaceIsRegisteredOnlyWhenPinned() throws {
        let user = try SecondUser()
        defer { user.remove() }
        let entitlements = try writeEntitlements(
            in: folder, name: "app", applicationIdentifier: "TEAM.app", groups: ["TEAM.shared"])
        // The file is the other user's; then root's, in a folder the other user owns.
        let owned = folder + "/owned-app"
        try user.ownedFile(owned, contents: "#!/bin/sh\n", mode: 0o755)
        let refused = try register(owned, entitlements: entitlements)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("belongs to user \(user.uid)"), "\(refused.standardError)")
        #expect(refused.standardError.contains("--pin"))
        let theirs = folder + "/theirs"
        try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: false)
        chown(theirs, user.uid, user.gid)
        try "#!/bin/sh\n".write(toFile: theirs + "/app", atomically: false, encoding: .utf8)
        chmod(theirs + "/app", 0o755)
        #expect(try register(theirs + "/app", entitlements: entitlements).status != 0)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: registry))?.isEmpty ?? true)
        // Pinned, it is checked by its contents: registered.
        let pinned = try register(owned, entitlements: entitlements, pin: true)
        #expect(pinned.status == 0, "\(pinned.standardError)")
        // Root's file in root's folder (under the sticky /tmp): registered as it is.
        let rootsOwn = folder + "/roots-app"
        try "#!/bin/sh\n".write(toFile: rootsOwn, atomically: false, encoding: .utf8)
        chmod(rootsOwn, 0o755)
        let plain = try register(rootsOwn, entitlements: entitlements)
        #expect(plain.status == 0, "\(plain.standardError)")
    }

    @Test func everyKeyOfTheEntitlementsFileIsRecordedAndListed() throws {
        let app = folder + "/private-app"
        try "#!/bin/sh\n".write(toFile: app, atomically: false, encoding: .utf8)
        chmod(app, 0o755)
        let entitlements = folder + "/private.json"
        try #"{"application-identifier": "TEAM.private", "keychain-access-groups": ["TEAM.private.shared"], "#
            .appending(#""keychain-administrator": true, "clavis.secret-service.shared": false, "#)
            .appending(#""com.apple.security.application-groups": ["group.private"]}"#)
            .write(toFile: entitlements, atomically: false, encoding: .utf8)
        let registered = try register(app, entitlements: entitlements)
        #expect(registered.status == 0, "\(registered.standardError)")
        let listed = try ClavisBinary.run(["--json", "app", "list", "--registry", registry], home: folder + "/home")
        let apps = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]]
        #expect(apps?.first?["clavis.secret-service.shared"] as? Bool == false, "\(listed.standardOutput)")
        #expect(apps?.first?["keychain-administrator"] as? Bool == true)
        #expect(apps?.first?["com.apple.security.application-groups"] as? [String] == ["group.private"])
        #expect(apps?.first?["keychain-access-groups"] as? [String] == ["TEAM.private.shared"])
        let plain = try ClavisBinary.run(["app", "list", "--registry", registry], home: folder + "/home")
        #expect(plain.standardOutput.contains("(not shared with Secret Service clients)"))
        let files = try FileManager.default.contentsOfDirectory(atPath: registry)
        let written = try String(contentsOfFile: registry + "/" + files[0], encoding: .utf8)
        #expect(written.contains("\"clavis.secret-service.shared\" : false"), "\(written)")
    }
}
