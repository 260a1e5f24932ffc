import ClavisClient
import ClavisCore
import ClavisTestSupport
import Foundation
import Testing

/// clavisd's Secret Service (`org.freedesktop.secrets`) used by the real programs that speak it: `secret-tool`
/// (libsecret), Python's `secretstorage` and `keyring`; `SecretServiceProtocolTests` makes the raw calls.
@Suite(.serialized) final class SecretServiceTests {
    private var daemons: [SecretServiceDaemon] = []
    private var folders: [String] = []

    deinit {
        for daemon in daemons { daemon.stop() }
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
    }

    func start(apps: [String: [String: Any]] = [:], options: [String] = [], environment: [String: String] = [:])
        throws -> SecretServiceDaemon
    {
        let daemon = try SecretServiceDaemon(apps: apps, options: options, environment: environment)
        daemons.append(daemon)
        return daemon
    }

    func folder(_ prefix: String) throws -> String {
        let folder = try makeTemporaryFolder(prefix)
        folders.append(folder)
        return folder
    }

    @Test func secretServiceCallsAreInTheAccessLogWithTheirCallerAndNeverAValue() throws {
        let service = try start()
        let secret = "s3cret-\(UUID().uuidString)"
        let user = "user-\(UUID().uuidString)"
        #expect(
            try service.secretTool("store", "--label=Mail", "service", "smtp", "user", user, input: secret).status == 0)
        #expect(try service.secretTool("lookup", "service", "smtp", "user", user).standardOutput == secret)
        let shown = try service.daemon.client(["--json", "log"])
        #expect(shown.status == 0, "\(shown.standardError)")
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(shown.standardOutput.utf8)) as? [[String: Any]])
        let calls = entries.filter { ($0["operation"] as? String)?.hasPrefix("secret-service ") == true }
        let operations = Set(calls.compactMap { $0["operation"] as? String })
        #expect(
            operations.isSuperset(of: ["secret-service createItem", "secret-service searchItems"]), "\(operations)")
        #expect(calls.allSatisfy { $0["executable"] as? String == "/usr/bin/secret-tool" }, "\(calls)")
        #expect(calls.contains { $0["status"] as? Int == 0 })
        for value in [secret, user] {
            #expect(!shown.standardOutput.contains(value), "\(value) reached the access log")
        }
    }

    @Test func secretToolStoresLooksUpSearchesAndClears() throws {
        let service = try start()
        let stored = try service.secretTool(
            "store", "--label=Mail account", "service", "smtp", "user", "anna", input: "hunter2")
        #expect(stored.status == 0, "\(stored.standardError)")
        let found = try service.secretTool("lookup", "service", "smtp", "user", "anna")
        #expect(found.status == 0, "\(found.standardError)")
        #expect(found.standardOutput == "hunter2")
        #expect(try service.secretTool("lookup", "service", "smtp", "user", "bob").standardOutput.isEmpty)

        let listed = try service.secretTool("search", "--all", "service", "smtp")
        #expect(listed.status == 0, "\(listed.standardError)")
        let everything = listed.standardOutput + listed.standardError
        for expected in [
            "label = Mail account", "secret = hunter2", "attribute.user = anna", "attribute.service = smtp",
        ] {
            #expect(everything.contains(expected), "search --all: \(everything)")
        }

        let cleared = try service.secretTool("clear", "service", "smtp", "user", "anna")
        #expect(cleared.status == 0, "\(cleared.standardError)")
        let gone = try service.secretTool("lookup", "service", "smtp", "user", "anna")
        #expect(gone.status != 0 && gone.standardOutput.isEmpty)
    }

    @Test func secretStorageCreatesSearchesReadsReplacesAndDeletesOverAnEncryptedSession() throws {
        let service = try start()
        let run = try service.python(
            """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            assert not collection.is_locked()
            item = collection.create_item("first", {"app": "demo", "user": "anna"}, b"s3cret")
            assert collection.session.encrypted, "secretstorage fell back to a plain session"
            assert item.get_secret() == b"s3cret"
            assert item.get_attributes() == {"app": "demo", "user": "anna"}
            found = list(secretstorage.search_items(connection, {"app": "demo"}))
            assert [f.item_path for f in found] == [item.item_path], found
            replaced = collection.create_item("second", {"app": "demo", "user": "anna"}, b"changed", replace=True)
            assert replaced.item_path == item.item_path
            assert item.get_secret() == b"changed" and item.get_label() == "second"
            other = collection.create_item("third", {"app": "demo", "user": "bob"}, b"bob's")
            assert other.item_path != item.item_path
            assert len(list(collection.search_items({"app": "demo"}))) == 2
            item.set_label("relabelled")
            item.set_attributes({"app": "demo", "user": "carol"})
            assert item.get_label() == "relabelled"
            assert [i.item_path for i in collection.search_items({"user": "carol"})] == [item.item_path]
            item.set_secret(b"new secret")
            assert item.get_secret() == b"new secret"
            item.delete()
            other.delete()
            assert list(secretstorage.search_items(connection, {"app": "demo"})) == []
            print("ok")
            """)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "ok\n")
    }

    @Test func keyringSetsGetsAndDeletesAPasswordThatSecretToolSharesByDefault() throws {
        let service = try start()
        let environment = ["PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"]
        let set = try service.python(
            "import keyring; keyring.set_password('example.org', 'bob', 'pw1'); print(keyring.get_password('example.org', 'bob'))",
            environment: environment)
        #expect(set.status == 0, "\(set.standardError)")
        #expect(set.standardOutput == "pw1\n")
        // Another program (secret-tool, unregistered like Python) finds it: both are in the shared group.
        let shared = try service.secretTool("lookup", "service", "example.org", "username", "bob")
        #expect(shared.standardOutput == "pw1", "\(shared.standardError)")
        let deleted = try service.python(
            "import keyring; keyring.delete_password('example.org', 'bob'); print(keyring.get_password('example.org', 'bob'))",
            environment: environment)
        #expect(deleted.status == 0, "\(deleted.standardError)")
        #expect(deleted.standardOutput == "None\n")
    }

    @Test func registeredProgramsThatOptOutSeeOnlyTheirOwnItemsWhileOthersShare() throws {
        let copies = try folder("secret-tool-copies")
        var path: [String: String] = [:]
        for name in ["a", "b", "c"] {
            try FileManager.default.createDirectory(atPath: copies + "/" + name, withIntermediateDirectories: true)
            path[name] = copies + "/" + name + "/secret-tool"
            try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: path[name]!)
        }
        let service = try start(apps: [
            "a.json": [
                "executable": path["a"]!, "application-identifier": "TEAM.a", "clavis.secret-service.shared": false,
            ],
            "b.json": [
                "executable": path["b"]!, "application-identifier": "TEAM.b", "clavis.secret-service.shared": false,
            ],
            "c.json": ["executable": path["c"]!, "application-identifier": "TEAM.c"],
        ])
        func tool(_ name: String, _ arguments: String..., input: String? = nil) throws -> ProcessOutput {
            let executable = name == "shared" ? "/usr/bin/secret-tool" : path[name]!
            return try runProcess(executable, arguments, environment: service.bus.environment, input: input)
        }

        // a opted out: what it stores, neither b (opted out too) nor the shared programs see.
        #expect(try tool("a", "store", "--label=a", "service", "isolated", input: "from a").status == 0)
        #expect(try tool("a", "lookup", "service", "isolated").standardOutput == "from a")
        #expect(try tool("b", "lookup", "service", "isolated").standardOutput.isEmpty)
        #expect(try tool("shared", "lookup", "service", "isolated").standardOutput.isEmpty)
        #expect(try tool("c", "lookup", "service", "isolated").standardOutput.isEmpty)
        // b's item with the same attributes is its own; a's is untouched.
        #expect(try tool("b", "store", "--label=b", "service", "isolated", input: "from b").status == 0)
        #expect(try tool("b", "lookup", "service", "isolated").standardOutput == "from b")
        #expect(try tool("a", "lookup", "service", "isolated").standardOutput == "from a")
        #expect(try tool("b", "clear", "service", "isolated").status == 0)
        #expect(try tool("a", "lookup", "service", "isolated").standardOutput == "from a")

        // The shared group: an unregistered program and a registered one that did not opt out share; a does not.
        #expect(try tool("shared", "store", "--label=s", "service", "shared", input: "for everyone").status == 0)
        #expect(try tool("c", "lookup", "service", "shared").standardOutput == "for everyone")
        #expect(try tool("a", "lookup", "service", "shared").standardOutput.isEmpty)
        #expect(try tool("c", "store", "--label=c", "service", "from-c", input: "c's").status == 0)
        #expect(try tool("shared", "lookup", "service", "from-c").standardOutput == "c's")
    }

    @Test func anOptedOutProgramsChangesAreSignalledToItAlone() throws {
        let copies = try folder("secret-tool-private")
        let privateTool = copies + "/secret-tool"
        try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: privateTool)
        let service = try start(apps: [
            "p.json": [
                "executable": privateTool, "application-identifier": "TEAM.p", "clavis.secret-service.shared": false,
            ]
        ])
        // A shared client listens for ItemCreated and reads the label of the first item it hears of.
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = [
            "-c",
            """
            from jeepney import DBusAddress, Properties, HeaderFields, MessageType
            from jeepney.bus_messages import message_bus, MatchRule
            from jeepney.io.blocking import open_dbus_connection
            connection = open_dbus_connection(bus="SESSION")
            rule = MatchRule(type="signal", interface="org.freedesktop.Secret.Collection", member="ItemCreated")
            with connection.filter(rule) as signals:
                connection.send_and_get_reply(message_bus.AddMatch(rule))
                print("ready", flush=True)
                item = connection.recv_until_filtered(signals, timeout=60).body[0]
            address = DBusAddress(item, bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Item")
            reply = connection.send_and_get_reply(Properties(address).get("Label"))
            print(reply.body if reply.header.message_type != MessageType.error else "unreadable " + item)
            """,
        ]
        listener.environment = ProcessInfo.processInfo.environment.merging(service.bus.environment) { _, new in new }
        let heard = Pipe()
        listener.standardOutput = heard
        try listener.run()
        defer { if listener.isRunning { listener.terminate() } }
        #expect(readUntil("ready", on: heard).contains("ready"))

        // The opted-out program's item first: were its signal broadcast, the listener would hear of it first.
        let stored = try runProcess(
            privateTool, ["store", "--label=private", "k", "p"], environment: service.bus.environment, input: "p")
        #expect(stored.status == 0, "\(stored.standardError)")
        #expect(try service.secretTool("store", "--label=shared", "k", "s", input: "s").status == 0)
        listener.waitUntilExit()
        let said = String(decoding: heard.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.trimmingCharacters(in: .whitespacesAndNewlines) == "(('s', 'shared'),)", "heard: \(said)")
    }

    @Test func unlockOfALockedKeychainIsAPromptTheDaemonsPinentryCompletes() throws {
        let folder = try folder("secret-service-pinentry")
        let pinentry = try DaemonPinentryTests.writeScriptedPinentry(in: folder)
        let service = try start(options: ["--pinentry", pinentry])
        #expect(
            try service.secretTool("store", "--label=l", "service", "guarded", input: "behind the lock").status == 0)
        for step in [["set-keychain-password", "-p", "7391"], ["lock-keychain"]] {
            let output = try service.daemon.client(step)
            #expect(output.status == 0, "\(step): \(output.standardError)")
        }
        func answer(_ lines: String...) throws {
            try (lines.joined(separator: "\n") + "\n").write(
                toFile: folder + "/answers", atomically: true, encoding: .utf8)
        }
        let unlock = """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            assert collection.is_locked()
            [found] = collection.search_items({"service": "guarded"})
            assert found.is_locked()
            dismissed = collection.unlock()
            print("dismissed" if dismissed else "unlocked", collection.is_locked())
            if not dismissed:
                print([i.get_secret() for i in collection.search_items({"service": "guarded"})])
            """

        // Cancelled in pinentry: the prompt completes dismissed, and the keychain stays locked.
        try answer("CANCEL")
        let cancelled = try service.python(unlock)
        #expect(cancelled.status == 0, "\(cancelled.standardError)")
        #expect(cancelled.standardOutput == "dismissed True\n")

        // A wrong passcode, then the right one, typed into the daemon's pinentry: unlocked, the secret readable.
        try answer("1111", "7391")
        let unlocked = try service.python(unlock)
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        #expect(unlocked.standardOutput == "unlocked False\n[b'behind the lock']\n")
        let commands = try String(contentsOfFile: folder + "/commands.log", encoding: .utf8)
        #expect(commands.components(separatedBy: "GETPIN\n").count - 1 == 3, "three passcodes asked: \(commands)")
    }

    @Test func theBusServesOtherCallsWhileAPromptWaitsForTheUser() throws {
        let folder = try folder("secret-service-waiting")
        for fifo in ["asked", "answer"] { #expect(mkfifo(folder + "/" + fifo, 0o600) == 0) }
        // A pinentry that says when it is asked (on the FIFO `asked`) and waits for the answer (on `answer`).
        let pinentry = folder + "/pinentry"
        try """
        #!/bin/sh
        echo "OK Pleased to meet you"
        while IFS= read -r line; do
            case "$line" in
            GETPIN) echo asked > '\(folder)/asked'; answer=$(head -n 1 '\(folder)/answer'); echo "D $answer"; echo OK ;;
            BYE) echo "OK closing connection"; exit 0 ;;
            *) echo OK ;;
            esac
        done

        """.write(toFile: pinentry, atomically: true, encoding: .utf8)
        chmod(pinentry, 0o755)
        let service = try start(options: ["--pinentry", pinentry])
        #expect(try service.secretTool("store", "--label=w", "service", "waiting", input: "worth the wait").status == 0)
        for step in [["set-keychain-password", "-p", "7391"], ["lock-keychain"]] {
            #expect(try service.daemon.client(step).status == 0)
        }
        let asked = open(folder + "/asked", O_RDONLY | O_NONBLOCK)
        defer { close(asked) }
        let unlocking = Process()
        unlocking.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        unlocking.arguments = [
            "-c",
            """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            print(collection.unlock(), [i.get_secret() for i in collection.search_items({"service": "waiting"})])
            """,
        ]
        unlocking.environment = ProcessInfo.processInfo.environment.merging(service.bus.environment) { _, new in new }
        let unlocked = Pipe()
        unlocking.standardOutput = unlocked
        try unlocking.run()
        defer { if unlocking.isRunning { unlocking.terminate() } }

        // The user is being asked: meanwhile another client is answered.
        var ready = pollfd(fd: asked, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 60_000) == 1, "pinentry was never asked")
        // (A bound on the wait, so that a bus stuck in the prompt fails the test rather than hanging it.)
        let meanwhile = try service.python(
            """
            from jeepney import DBusAddress, Properties
            from jeepney.io.blocking import open_dbus_connection
            login = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name="org.freedesktop.secrets",
                                interface="org.freedesktop.Secret.Collection")
            print(open_dbus_connection(bus="SESSION").send_and_get_reply(Properties(login).get("Locked"), timeout=20).body[0][1])
            """)
        #expect(meanwhile.standardOutput == "True\n", "\(meanwhile.standardError)")

        // The user answers: the prompt completes.
        let answer = try #require(FileHandle(forWritingAtPath: folder + "/answer"))
        answer.write(Data("7391\n".utf8))
        try answer.close()
        unlocking.waitUntilExit()
        let said = String(decoding: unlocked.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said == "False [b'worth the wait']\n")
    }

    /// A daemon, and a client of it in this test process, registered with the group Secret Service clients share.
    func startWithThisProcessSharing(options: [String] = []) throws -> (SecretServiceDaemon, KeychainClient) {
        let tests = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let service = try start(
            apps: [
                "tests.json": [
                    "executable": tests, "application-identifier": "TEAM.tests",
                    "keychain-access-groups": [SecretServiceItem.sharedAccessGroup],
                ]
            ], options: options)
        let client = try KeychainClient(
            configuration: ClavisConfiguration.current.with(daemonSocket: service.daemon.socket))
        return (service, client)
    }

    @Test(.preparedKeychain) func anImportedCollectionIsListedWithItsLabelAndServed() throws {
        // As clavis import-secret-service leaves them: another provider's collection, its marker and its items.
        let (service, client) = try startWithThisProcessSharing()
        let marker = SecretServiceItem.collectionMarker(
            name: "Imported", label: "From elsewhere", accessGroup: SecretServiceItem.sharedAccessGroup)
        guard case .done = try client.service.add(marker) else {
            Issue.record("the marker could not be added")
            return
        }
        let imported = SecretServiceItem(
            collection: "Imported", label: "from elsewhere", attributes: ["origin": "gnome-keyring"],
            secret: SecureBytes(Data("carried over".utf8)), contentType: "text/plain")
        guard
            case .done(let stored) = try client.service.add(
                imported.newItem(accessGroup: SecretServiceItem.sharedAccessGroup))
        else {
            Issue.record("the item could not be added")
            return
        }
        let run = try service.python(
            """
            import secretstorage
            connection = secretstorage.dbus_init()
            print(sorted(c.collection_path for c in secretstorage.get_all_collections(connection)))
            [item] = secretstorage.search_items(connection, {"origin": "gnome-keyring"})
            print(item.item_path, item.get_label(), item.get_secret())
            collection = secretstorage.Collection(connection, "/org/freedesktop/secrets/collection/Imported")
            print(collection.get_label(), [i.item_path for i in collection.get_all_items()] == [item.item_path])
            """)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput == """
                ['/org/freedesktop/secrets/collection/Imported', '/org/freedesktop/secrets/collection/login', '/org/freedesktop/secrets/collection/session']
                /org/freedesktop/secrets/collection/Imported/\(SecretServiceItem.id(of: stored.persistentReference)) from elsewhere b'carried over'
                From elsewhere True

                """)
    }

    @Test(.preparedKeychain) func anItemWithAnAccessControlIsLockedUntilTheDaemonsPinentryVerifiesThePasscode() throws {
        let folder = try folder("secret-service-guarded")
        let pinentry = try DaemonPinentryTests.writeScriptedPinentry(in: folder)
        // This test process stores the item through Apple's model, since the Secret Service makes no
        // access-controlled items.
        let (service, client) = try startWithThisProcessSharing(options: ["--pinentry", pinentry])
        try client.setPasscode(SecureBytes(Data("7391".utf8)), current: nil, strength: .cheapForTesting)
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .devicePasscode)
        let added = try client.service.add(
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .service: .string("login"), .account: .string("guarded"), .label: .string("guarded"),
                    .accessGroup: .string("org.freedesktop.secrets"), .accessible: .string("aku"),
                    .accessControl: .data(policy.encoded),
                    .secretServiceAttributes: .data(SecretServiceAttributes(["kind": "guarded"]).encoded),
                ], secret: SecureBytes(Data("behind the passcode".utf8))))
        guard case .done = added else {
            Issue.record("the access-controlled item could not be added")
            return
        }
        try "7391\n".write(toFile: folder + "/answers", atomically: true, encoding: .utf8)
        let run = try service.python(
            """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            [item] = collection.search_items({"kind": "guarded"})
            print(collection.is_locked(), item.is_locked())
            try:
                item.get_secret()
            except secretstorage.exceptions.LockedException:
                print("refused")
            print(item.unlock(), item.is_locked(), item.get_secret())
            """)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "False True\nrefused\nFalse False b'behind the passcode'\n")
        let commands = try String(contentsOfFile: folder + "/commands.log", encoding: .utf8)
        #expect(commands.components(separatedBy: "GETPIN\n").count - 1 == 1, "one passcode asked: \(commands)")
    }

    @Test func aCallerOfAnotherUserIsRefused() throws {
        let service = try start()
        let other = try SecondUser()
        defer { other.remove() }
        let refused = try runProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=\(other.uid)", "--regid=\(other.gid)", "--clear-groups", "/usr/bin/secret-tool", "lookup", "a",
                "b",
            ],
            environment: service.bus.environment)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("serves user 0 only"), "\(refused.standardError)")
    }

    @Test func aSecondDaemonLeavesTheNameToTheFirst() throws {
        let first = try start()
        let second = try TestDaemon(mode: "user", environment: first.bus.environment)
        defer { second.stop() }
        let said = second.waitForLog("org.freedesktop.secrets")
        #expect(said.contains("another program owns org.freedesktop.secrets"), "\(said)")
        #expect(try first.secretTool("store", "--label=x", "k", "v", input: "still served").status == 0)
        #expect(try first.secretTool("lookup", "k", "v").standardOutput == "still served")
    }

    @Test func aDaemonStartedWithNoSecretServiceLeavesTheNameAlone() throws {
        let bus = try PrivateBus("secret-service-bus", kind: .session)
        defer { bus.stop() }
        let off = try TestDaemon(mode: "user", options: ["--no-secret-service"], environment: bus.environment)
        defer { off.stop() }
        #expect(off.waitForLog("org.freedesktop.secrets").contains("--no-secret-service"))
        let on = try TestDaemon(mode: "user", environment: bus.environment)
        defer { on.stop() }
        let said = on.waitForLog("org.freedesktop.secrets")
        #expect(said.contains("owns org.freedesktop.secrets"), "\(said)")
    }
}
