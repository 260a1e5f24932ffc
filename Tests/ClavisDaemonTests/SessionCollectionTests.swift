import ClavisTestSupport
import Foundation
import Testing

/// The `session` collection: what clients keep there stays in clavisd's memory (nothing of it reaches `keychain.db`,
/// its journal or the access log), and each program sees only its own group's, as in the keychain.
@Suite(.serialized) final class SessionCollectionTests {
    let folder: String
    let optedOut: String
    let service: SecretServiceDaemon

    init() throws {
        folder = try makeTemporaryFolder("secret-service-session")
        chmod(folder, 0o755)
        optedOut = folder + "/secret-tool"
        try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: optedOut)
        service = try SecretServiceDaemon(apps: [
            "o.json": [
                "executable": optedOut, "application-identifier": "TEAM.o", "clavis.secret-service.shared": false,
            ]
        ])
    }

    deinit { service.stop() }

    /// Every byte of every file in the daemon's state folder (the keychain, its journal, the access log).
    private func everythingOnDisk() throws -> Data {
        var all = Data()
        let files = try FileManager.default.subpathsOfDirectory(atPath: service.daemon.state)
        for file in files {
            var isFolder: ObjCBool = false
            let path = service.daemon.state + "/" + file
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
                continue
            }
            all += try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return all
    }

    @Test func itemsKeptThereNeverReachTheDisk() throws {
        let secret = "session-only-secret-\(UUID().uuidString)"
        let label = "Session-only label \(UUID().uuidString)"
        let attribute = "session-only-attribute-\(UUID().uuidString)"
        let stored = try service.secretTool(
            "store", "--collection=session", "--label=\(label)", "purpose", attribute, input: secret)
        #expect(stored.status == 0, "\(stored.standardError)")
        #expect(try service.secretTool("lookup", "purpose", attribute).standardOutput == secret)
        // A keychain item beside it, to show that the files are written and read here.
        let keychainSecret = "keychain-secret-\(UUID().uuidString)"
        #expect(try service.secretTool("store", "--label=Disk", "purpose", "disk", input: keychainSecret).status == 0)
        let disk = try everythingOnDisk()
        #expect(!disk.isEmpty)
        for text in [secret, label, attribute] {
            #expect(disk.range(of: Data(text.utf8)) == nil, "\(text) reached the disk")
        }
        // The access log recorded the calls, and names the session collection's operations without their values.
        let log = try String(contentsOfFile: service.daemon.state + "/access.log", encoding: .utf8)
        #expect(log.contains("secret-service createItem"), "\(log.suffix(500))")
    }

    @Test func eachProgramSeesOnlyItsOwnGroupsSessionItems() throws {
        let shared = try service.secretTool("store", "--collection=session", "--label=Shared", "app", "x", input: "one")
        #expect(shared.status == 0, "\(shared.standardError)")
        let theirs = try runProcess(optedOut, ["lookup", "app", "x"], environment: service.bus.environment)
        #expect(theirs.standardOutput.isEmpty, "an opted-out program found another group's session item")
        let own = try runProcess(
            optedOut, ["store", "--collection=session", "--label=Own", "app", "x"],
            environment: service.bus.environment,
            input: "two")
        #expect(own.status == 0, "\(own.standardError)")
        #expect(
            try runProcess(optedOut, ["lookup", "app", "x"], environment: service.bus.environment).standardOutput
                == "two")
        #expect(try service.secretTool("lookup", "app", "x").standardOutput == "one")
    }

    @Test func keyringKeepsAPasswordInTheSessionCollection() throws {
        let script = """
            import keyring
            from keyring.backends.SecretService import Keyring
            backend = Keyring()
            backend.preferred_collection = "/org/freedesktop/secrets/collection/session"
            backend.set_password("example.org", "bob", "in-memory-pw")
            print(backend.get_password("example.org", "bob"))
            backend.delete_password("example.org", "bob")
            print(backend.get_password("example.org", "bob"))
            """
        let output = try service.python(script)
        #expect(output.standardOutput == "in-memory-pw\nNone\n", "\(output.standardError)")
    }
}
