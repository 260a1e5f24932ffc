import ClavisTestSupport
import Foundation
import Testing

/// `clavis app remove` against a real system-mode clavisd: a removed app's items stay and come back when it is
/// registered again; `--delete-items` deletes only the groups no other registered app holds; the daemon logs both.
@Suite(.serialized, .preparedKeychain) final class DaemonAppRemovalTests {
    private var daemons: [TestDaemon] = []

    deinit {
        for daemon in daemons { daemon.stop() }
    }

    /// Three copies of `clavis` registered with a system-mode daemon: an administrator, and apps A and B, which
    /// share `TEAM.shared`.
    private func apps() throws -> (daemon: TestDaemon, administrator: String, a: String, b: String) {
        // The copies go in the daemon's own folder, removed with it.
        let folder = try makeTemporaryFolder("clavisd")
        let (administrator, a, b) = try (
            copy(into: folder, "administrator"), copy(into: folder, "a"), copy(into: folder, "b")
        )
        var apps: [String: [String: Any]] = [:]
        for (name, executable) in [("a", a), ("b", b)] {
            apps[name + ".json"] = [
                "executable": executable, "application-identifier": "TEAM." + name,
                "keychain-access-groups": ["TEAM.shared"],
            ]
        }
        apps["admin.json"] = ["executable": administrator, "application-identifier": "TEAM.admin"]
        apps["admin.json"]?["keychain-administrator"] = true
        let daemon = try TestDaemon(mode: "system", apps: apps, reusing: folder)
        daemons.append(daemon)
        for (service, group) in [("own", "TEAM.a"), ("shared", "TEAM.shared")] {
            let added = try daemon.client(
                ["add-generic-password", "-a", "me", "-s", service, "-w", "a-\(service)", "--access-group", group],
                executable: a)
            #expect(added.status == 0, "\(added.standardError)")
        }
        return (daemon, administrator, a, b)
    }

    /// A copy of `clavis` at `folder/name/clavis`: another executable, so another identity.
    private func copy(into folder: String, _ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ClavisBinary.path, toPath: folder + "/" + name + "/clavis")
        return folder + "/" + name + "/clavis"
    }

    /// Registers app A again, as `clavis app register` does on reinstall.
    private func registerAgain(_ a: String, with daemon: TestDaemon) throws {
        let entitlements = daemon.folder + "/a.entitlements"
        try Data(#"{"application-identifier": "TEAM.a", "keychain-access-groups": ["TEAM.shared"]}"#.utf8)
            .write(to: URL(fileURLWithPath: entitlements))
        let register = try ClavisBinary.run(
            ["app", "register", "--executable", a, "--entitlements", entitlements, "--registry", daemon.registry],
            home: daemon.folder + "/unused")
        #expect(register.status == 0, "\(register.standardError)")
    }

    private func secret(_ service: String, as app: String, of daemon: TestDaemon) throws -> ProcessOutput {
        try daemon.client(["find-generic-password", "-a", "me", "-s", service, "-w"], executable: app)
    }

    @Test func aRemovedAppsItemsStayAndComeBackWhenItIsRegisteredAgain() throws {
        let (daemon, _, a, _) = try apps()
        let remove = try ClavisBinary.run(
            ["app", "remove", "TEAM.a", "--registry", daemon.registry], home: daemon.folder + "/unused")
        #expect(remove.status == 0)
        #expect(remove.standardOutput.contains("its items stay"))

        // Unregistered, A's executable is nobody in particular: it reaches none of its former items.
        #expect(try secret("own", as: a, of: daemon).status == 44)
        #expect(daemon.waitForLog("TEAM.a is no longer registered").contains("its items stay"))

        try registerAgain(a, with: daemon)
        #expect(try secret("own", as: a, of: daemon).standardOutput == "a-own\n")
        #expect(try secret("shared", as: a, of: daemon).standardOutput == "a-shared\n")
    }

    @Test func deletingItemsPurgesOnlyTheGroupsNoOtherRegisteredAppHolds() throws {
        let (daemon, administrator, a, b) = try apps()
        let remove = try daemon.client(
            ["app", "remove", "TEAM.a", "--delete-items", "--registry", daemon.registry], executable: administrator)
        #expect(remove.status == 0, "\(remove.standardError)")
        #expect(remove.standardOutput.contains("deleted 1 items of TEAM.a"))
        let logged = daemon.waitForLog("of a removed app's groups")
        #expect(logged.contains("deleted 1 items of a removed app's groups (TEAM.a)"))
        #expect(!logged.contains("a-own") && !logged.contains("a-shared"), "no secret in the daemon's log")

        // B still holds the shared group: its item stays, for B and for A once registered again.
        #expect(try secret("shared", as: b, of: daemon).standardOutput == "a-shared\n")
        try registerAgain(a, with: daemon)
        #expect(try secret("own", as: a, of: daemon).status == 44)
        #expect(try secret("shared", as: a, of: daemon).standardOutput == "a-shared\n")
    }

    @Test func onlyAnAdministratorMayDeleteARemovedAppsItems() throws {
        let (daemon, _, a, b) = try apps()
        let remove = try daemon.client(
            ["app", "remove", "TEAM.a", "--delete-items", "--registry", daemon.registry], executable: b)
        #expect(remove.status != 0)
        #expect(remove.standardError.contains("keychain administrator"))
        try registerAgain(a, with: daemon)
        #expect(try secret("own", as: a, of: daemon).standardOutput == "a-own\n")
    }
}
