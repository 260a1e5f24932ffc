import ClavisTestSupport
import Foundation
import Testing

/// `clavis export` and `import` run by two apps with different entitlements on one keychain.
@Suite(.preparedKeychain) struct BackupAccessGroupTests {
    /// A keychain where app A (group `group.a`) and app B (group `group.b`) each stored one secret.
    private struct TwoApps {
        let folder: String
        let home: String
        let appA: [String: String]
        let appB: [String: String]

        init() throws {
            folder = try makeTemporaryFolder("clavis-backup-groups")
            home = folder + "/home"
            appA = [
                "CLAVIS_ENTITLEMENTS": try writeEntitlements(
                    in: folder, name: "a", applicationIdentifier: "TEAM.a", groups: ["group.a"])
            ]
            appB = [
                "CLAVIS_ENTITLEMENTS": try writeEntitlements(
                    in: folder, name: "b", applicationIdentifier: "TEAM.b", groups: ["group.b"])
            ]
            for (app, secret) in [(appA, "secret-of-a"), (appB, "secret-of-b")] {
                let added = try run(["add-generic-password", "-a", "me", "-s", "svc", "-w", secret], as: app)
                #expect(added.status == 0, "\(added.standardError)")
            }
        }

        func run(_ arguments: [String], as app: [String: String], home: String? = nil, input: String? = nil) throws
            -> ProcessOutput
        {
            try ClavisBinary.run(arguments, home: home ?? self.home, input: input, environment: app)
        }
    }

    @Test func exportTakesOnlyTheCallersGroups() throws {
        let apps = try TwoApps()
        let backup = apps.folder + "/b.backup"
        let exported = try apps.run(["--json", "export", "-o", backup, "-P", "phrase"], as: apps.appB)
        #expect(exported.status == 0, "\(exported.standardError)")
        let summary = try JSONSerialization.jsonObject(with: Data(exported.standardOutput.utf8)) as? [String: Any]
        #expect(summary?["exported"] as? Int == 1)

        // Restored elsewhere by B itself, the backup holds B's secret and nothing of A's.
        let elsewhere = apps.folder + "/elsewhere"
        let imported = try apps.run(["import", backup, "-P", "phrase"], as: apps.appB, home: elsewhere)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("restored 1 items"))
        let dump = try apps.run(["dump-keychain", "-d"], as: apps.appB, home: elsewhere)
        #expect(dump.standardOutput.contains("secret-of-b"))
        #expect(!dump.standardOutput.contains("secret-of-a") && !dump.standardOutput.contains("group.a"))
    }

    @Test func importRefusesAnItemOfAGroupTheCallerLacksAndNamesIt() throws {
        let apps = try TwoApps()
        let backup = apps.folder + "/a.backup"
        #expect(try apps.run(["export", "-o", backup, "-P", "phrase"], as: apps.appA).status == 0)
        #expect(try apps.run(["delete-generic-password", "-a", "me", "-s", "svc"], as: apps.appA).status == 0)

        // B restores A's backup: A's item would land in A's group, where A would then trust it.
        let planted = try apps.run(["import", backup, "-P", "phrase"], as: apps.appB)
        #expect(planted.status == 30, "errSecMissingEntitlement's low byte: \(planted.standardError)")
        #expect(planted.standardError.contains("group.a"))
        let seenByA = try apps.run(["find-generic-password", "-a", "me", "-s", "svc"], as: apps.appA)
        #expect(seenByA.status == 44, "nothing was restored into A's group")

        let restored = try apps.run(["import", backup, "-P", "phrase"], as: apps.appA)
        #expect(restored.status == 0, "\(restored.standardError)")
        let found = try apps.run(["find-generic-password", "-a", "me", "-s", "svc", "-w"], as: apps.appA)
        #expect(found.standardOutput == "secret-of-a\n")
    }
}
