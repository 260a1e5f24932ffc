import ClavisTestSupport
import Foundation
import Testing

/// `clavis import-secret-service` moving a user from gnome-keyring to Clavis: gnome-keyring serves its own private
/// session bus, clavisd another; the import reads the first and writes through the daemon's socket, and the Secret
/// Service clients then find the items through clavisd.
@Suite(.serialized) final class ImportSecretServiceTests {
    @Test func theImportCopiesEveryItemOnceAndClavisdServesThem() throws {
        let gnomeKeyring = try GnomeKeyring()
        defer { gnomeKeyring.stop() }
        let items = [
            ("Mail", "smtp", "anna", "hunter2"), ("Web", "https", "ben", "topsecret"), ("Chat", "xmpp", "cy", ""),
        ]
        for (label, service, user, secret) in items {
            let stored = try gnomeKeyring.secretTool(
                "store", "--label=\(label)", "service", service, "user", user, input: secret)
            #expect(stored.status == 0, "\(stored.standardError)")
        }
        // An item of gnome-keyring's session collection, which must not touch a disk, is left where it is.
        let inMemory = try gnomeKeyring.secretTool(
            "store", "--collection=session", "--label=Memory", "service", "memory", "user", "anna", input: "volatile")
        #expect(inMemory.status == 0, "\(inMemory.standardError)")
        let clavis = try SecretServiceDaemon()
        defer { clavis.stop() }

        // Read from gnome-keyring's bus, written through clavisd's socket.
        let dryRun = try clavis.daemon.client(["import-secret-service", "-n"], environment: gnomeKeyring.environment)
        #expect(dryRun.status == 0, "\(dryRun.standardError)")
        #expect(dryRun.standardOutput == "would import 3 items from 1 collection; 0 already in the keychain\n")
        #expect(try clavis.secretTool("lookup", "service", "smtp", "user", "anna").standardOutput.isEmpty)

        let imported = try clavis.daemon.client(["import-secret-service"], environment: gnomeKeyring.environment)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == "imported 3 items from 1 collection; 0 already in the keychain\n")
        for (label, service, user, secret) in items {
            let found = try clavis.secretTool("lookup", "service", service, "user", user)
            #expect(found.status == 0, "\(label): \(found.standardError)")
            #expect(found.standardOutput == secret, "\(label)")
        }
        #expect(try clavis.secretTool("lookup", "service", "memory", "user", "anna").standardOutput.isEmpty)
        let listed = try clavis.secretTool("search", "--all", "user", "ben")
        let everything = listed.standardOutput + listed.standardError
        #expect(everything.contains("label = Web") && everything.contains("attribute.service = https"), "\(everything)")

        // A second run finds every item in place and adds none.
        let again = try clavis.daemon.client(
            ["--json", "import-secret-service"], environment: gnomeKeyring.environment)
        #expect(again.status == 0, "\(again.standardError)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any])
        #expect(summary["imported"] as? Int == 0 && summary["alreadyPresent"] as? Int == 3)
        #expect(summary["collections"] as? [String] == ["login"])
        let search = try clavis.secretTool("search", "--all", "service", "smtp")
        #expect(
            (search.standardOutput + search.standardError).components(separatedBy: "secret = hunter2").count == 2,
            "one item, not two: \(search.standardOutput)")
    }

    @Test func theImportRefusesClavisdItselfAndNamesAMissingProvider() throws {
        let clavis = try SecretServiceDaemon()
        defer { clavis.stop() }
        let itself = try clavis.daemon.client(["import-secret-service"], environment: clavis.bus.environment)
        #expect(itself.status == 206, "\(itself.standardError)")
        #expect(itself.standardError.contains("clavisd itself"))

        let nobody = try PrivateBus("empty-session-bus", kind: .session)
        defer { nobody.stop() }
        let missing = try clavis.daemon.client(["import-secret-service", "-n"], environment: nobody.environment)
        #expect(missing.status == 53, "\(missing.standardError)")
        #expect(missing.standardError.contains("no Secret Service answers on the session bus"))
    }

    @Test func anAppThatOptedOutOfSharingCannotImportIntoTheSharedGroup() throws {
        let copies = try makeTemporaryFolder("private-importer")
        defer { try? FileManager.default.removeItem(atPath: copies) }
        let copy = copies + "/clavis"
        try FileManager.default.copyItem(atPath: ClavisBinary.path, toPath: copy)
        let clavis = try SecretServiceDaemon(apps: [
            "private.json": [
                "executable": copy, "application-identifier": "TEAM.private", "clavis.secret-service.shared": false,
            ]
        ])
        defer { clavis.stop() }
        let gnomeKeyring = try GnomeKeyring()
        defer { gnomeKeyring.stop() }
        #expect(
            try gnomeKeyring.secretTool("store", "--label=Mail", "service", "smtp", input: "hunter2").status == 0)
        let refused = try clavis.daemon.client(
            ["import-secret-service"], executable: copy, environment: gnomeKeyring.environment)
        #expect(refused.status == 30, "\(refused.standardError)")
        #expect(try clavis.secretTool("lookup", "service", "smtp").standardOutput.isEmpty)
    }
}
