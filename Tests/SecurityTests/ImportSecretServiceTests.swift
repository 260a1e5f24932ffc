import Foundation
import Testing

/// `clavis import-secret-service` moving a user from gnome-keyring to Clavis: gnome-keyring serves its own private
/// session bus, clavisd another; the import reads the first and writes through the daemon's socket, and the Secret
/// Service clients then find the items through clavisd.
@Suite(.serialized) final class ImportSecretServiceTests {
    /// gnome-keyring on a bus of its own, unlocked with a passphrase, its data in the bus's folder.
    private final class GnomeKeyring {
        let bus: PrivateBus
        let environment: [String: String]

        init() throws {
            bus = try PrivateBus("gnome-keyring-bus", kind: .session)
            let home = bus.folder + "/home"
            try FileManager.default.createDirectory(atPath: home + "/run", withIntermediateDirectories: true)
            chmod(home + "/run", 0o700)
            environment = bus.environment.merging([
                "HOME": home, "XDG_RUNTIME_DIR": home + "/run", "XDG_DATA_HOME": home + "/share",
                "XDG_CONFIG_HOME": home + "/config",
            ]) { _, new in new }
            do {
                try bus.startService(named: "gnome_keyring.py", script: Self.starter, arguments: [home])
            } catch {
                bus.stop()
                throw error
            }
        }

        /// Runs `secret-tool` against gnome-keyring.
        func secretTool(_ arguments: String..., input: String? = nil) throws -> ProcessOutput {
            try runProcess("/usr/bin/secret-tool", arguments, environment: environment, input: input)
        }

        func stop() { bus.stop() }

        /// Starts gnome-keyring-daemon (which dies with this script) and prints "ready" once it owns
        /// `org.freedesktop.secrets`, learnt from the bus's `NameOwnerChanged`.
        private static let starter = #"""
            import ctypes, os, signal, subprocess, sys
            from jeepney.bus_messages import MatchRule, message_bus
            from jeepney.io.blocking import open_dbus_connection

            home = sys.argv[1]
            os.environ.update(HOME=home, XDG_RUNTIME_DIR=home + "/run", XDG_DATA_HOME=home + "/share",
                              XDG_CONFIG_HOME=home + "/config")
            connection = open_dbus_connection(bus="SESSION")
            rule = MatchRule(type="signal", sender="org.freedesktop.DBus", interface="org.freedesktop.DBus",
                             member="NameOwnerChanged", path="/org/freedesktop/DBus")
            rule.add_arg_condition(0, "org.freedesktop.secrets")
            connection.send_and_get_reply(message_bus.AddMatch(rule))

            def die_with_this_script():
                ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

            with connection.filter(rule) as changes:
                keyring = subprocess.Popen(
                    ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    preexec_fn=die_with_this_script)
                keyring.stdin.write(b"login passphrase")
                keyring.stdin.close()
                owned = connection.send_and_get_reply(message_bus.NameHasOwner("org.freedesktop.secrets")).body[0]
                while not owned:
                    owned = bool(connection.recv_until_filtered(changes, timeout=60).body[2])
            print("ready", flush=True)
            keyring.wait()
            """#
    }

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
