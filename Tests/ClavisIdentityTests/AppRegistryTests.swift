import ClavisIdentity
import Foundation
import Testing

/// The app registry: registrations map executables to entitlements; only files the registry's owner keeps count.
@Suite struct AppRegistryTests {
    private func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
        return path
    }

    private func write(_ app: [String: Any], to path: String, mode: mode_t = 0o644) throws {
        try JSONSerialization.data(withJSONObject: app).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
    }

    @Test func registeredExecutablesGetTheirGroupsAndOthersAPrivateOne() throws {
        let registry = try folder()
        try write(
            [
                "executable": "/usr/bin/a", "application-identifier": "TEAM.a",
                "keychain-access-groups": ["TEAM.shared"],
            ],
            to: registry + "/a.json")
        let (loaded, problems) = AppRegistry.load(folder: registry, owner: getuid())
        #expect(problems.isEmpty)
        let a = loaded.entitlements(executable: "/usr/bin/a") { nil }
        #expect(a.applicationIdentifier == "TEAM.a" && a.accessGroups == ["TEAM.shared", "TEAM.a"])
        let other = loaded.entitlements(executable: "/usr/bin/other") { nil }
        #expect(other.accessGroups == ["exe:/usr/bin/other"])
    }

    /// `com.apple.security.application-groups` follow the keychain access groups and the application identifier,
    /// in a registration as in an entitlements file.
    @Test func applicationGroupsComeAfterTheOtherGroups() throws {
        let registry = try folder()
        try write(
            [
                "executable": "/usr/bin/g", "application-identifier": "TEAM.g", "keychain-access-groups": ["TEAM.k"],
                "com.apple.security.application-groups": ["group.g", "TEAM.k"],
            ],
            to: registry + "/g.json")
        let (loaded, _) = AppRegistry.load(folder: registry, owner: getuid())
        let g = loaded.entitlements(executable: "/usr/bin/g") { nil }
        #expect(g.accessGroups == ["TEAM.k", "TEAM.g", "group.g"])
        #expect(g.defaultGroup == "TEAM.k")
        #expect(loaded.heldAccessGroups.contains("group.g"))
        let file = try Entitlements.parse(
            Data(#"{"application-identifier": "TEAM.f", "com.apple.security.application-groups": ["group.f"]}"#.utf8),
            source: "test")
        #expect(file.accessGroups == ["TEAM.f", "group.f"])
        #expect(file.defaultGroup == "TEAM.f")
    }

    @Test func aPinnedRegistrationCountsOnlyForTheSameContents() throws {
        let registry = try folder()
        try write(
            [
                "executable": "/usr/bin/a", "sha256": String(repeating: "ab", count: 32),
                "application-identifier": "TEAM.a",
            ],
            to: registry + "/a.json")
        let (loaded, _) = AppRegistry.load(folder: registry)
        #expect(
            loaded.entitlements(executable: "/usr/bin/a") { String(repeating: "ab", count: 32) }.applicationIdentifier
                == "TEAM.a")
        #expect(
            loaded.entitlements(executable: "/usr/bin/a") { String(repeating: "cd", count: 32) }.applicationIdentifier
                == "exe:/usr/bin/a")
    }

    @Test func filesOthersCouldWriteOrAnotherUserOwnsAreNotTrusted() throws {
        let registry = try folder()
        let app: [String: Any] = ["executable": "/usr/bin/a", "application-identifier": "TEAM.a"]
        try write(app, to: registry + "/writable.json", mode: 0o666)
        try write(["executable": "/usr/bin/b", "application-identifier": "TEAM.b"], to: registry + "/foreign.json")
        chown(registry + "/foreign.json", 65534, 65534)
        try write(["executable": "/usr/bin/c", "application-identifier": "TEAM.c"], to: registry + "/real.json")
        symlink(registry + "/real.json", registry + "/link.json")
        let (loaded, problems) = AppRegistry.load(folder: registry, owner: getuid())
        #expect(Set(loaded.apps.keys) == ["/usr/bin/c"])
        #expect(problems.count == 3)
        // A folder others may write is not trusted at all.
        chmod(registry, 0o777)
        #expect(AppRegistry.load(folder: registry, owner: getuid()).registry.apps.isEmpty)
        // Without an owner to check (a registry read for listing), every registration counts.
        #expect(
            Set(AppRegistry.load(folder: registry).registry.apps.keys) == ["/usr/bin/a", "/usr/bin/b", "/usr/bin/c"])
    }
}
