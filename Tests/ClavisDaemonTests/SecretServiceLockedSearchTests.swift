import ClavisClient
import ClavisCore
import ClavisTestSupport
import Foundation
import Testing

/// While the keychain is locked, a search names the items it matches in its `locked` list (their ids are their
/// persistent references, which the store keeps unsealed), so that libsecret's lookup unlocks them through the
/// daemon's pinentry and reads their secrets, as with gnome-keyring.
extension SecretServiceTests {
    /// A daemon with the scripted pinentry of `folder`, holding `hunter2` for `service smtp user anna`, its keychain
    /// given the passcode 7391 and locked.
    private func lockedDaemonHoldingAnItem(pinentryIn folder: String) throws -> SecretServiceDaemon {
        let pinentry = try DaemonPinentryTests.writeScriptedPinentry(in: folder)
        let service = try start(options: ["--pinentry", pinentry])
        let stored = try service.secretTool(
            "store", "--label=Mail", "service", "smtp", "user", "anna", input: "hunter2")
        #expect(stored.status == 0, "\(stored.standardError)")
        for step in [["set-keychain-password", "-p", "7391"], ["lock-keychain"]] {
            let output = try service.daemon.client(step)
            #expect(output.status == 0, "\(step): \(output.standardError)")
        }
        return service
    }

    /// Whether the `login` collection says it is locked.
    private func isLocked(_ service: SecretServiceDaemon) throws -> String {
        try service.python(
            """
            import secretstorage
            print(secretstorage.get_default_collection(secretstorage.dbus_init()).is_locked())
            """
        ).standardOutput
    }

    @Test func secretToolLookupWhileLockedUnlocksThroughTheDaemonsPinentryAndPrintsTheSecret() throws {
        let folder = try folder("secret-service-locked-lookup")
        let service = try lockedDaemonHoldingAnItem(pinentryIn: folder)
        try "7391\n".write(toFile: folder + "/answers", atomically: true, encoding: .utf8)
        let found = try service.secretTool("lookup", "service", "smtp", "user", "anna")
        #expect(found.status == 0, "\(found.standardError)")
        #expect(found.standardOutput == "hunter2")
        let commands = try String(contentsOfFile: folder + "/commands.log", encoding: .utf8)
        #expect(commands.components(separatedBy: "GETPIN\n").count - 1 == 1, "one passcode asked: \(commands)")
        #expect(try isLocked(service) == "False\n")
    }

    @Test func secretToolLookupWhileLockedPrintsNothingWhenPinentryIsCancelledAndTheKeychainStaysLocked() throws {
        let folder = try folder("secret-service-locked-cancel")
        let service = try lockedDaemonHoldingAnItem(pinentryIn: folder)
        try "CANCEL\n".write(toFile: folder + "/answers", atomically: true, encoding: .utf8)
        let found = try service.secretTool("lookup", "service", "smtp", "user", "anna")
        #expect(found.standardOutput.isEmpty, "\(found.standardError)")
        let commands = try String(contentsOfFile: folder + "/commands.log", encoding: .utf8)
        #expect(commands.contains("GETPIN\n"), "pinentry was never asked: the item was not listed as locked")
        #expect(try isLocked(service) == "True\n")
    }

    @Test func afterTheScreenLocksSecretToolLookupAsksThePinentryAndPrintsTheSecret() throws {
        let logind = try ScriptedLogind()
        defer { logind.stop() }
        let folder = try folder("secret-service-screen-lock")
        let pinentry = try DaemonPinentryTests.writeScriptedPinentry(in: folder)
        let service = try start(options: ["--pinentry", pinentry], environment: logind.environment)
        // (clavisd follows logind before it takes the bus name its start waited for.)
        #expect(try service.secretTool("store", "--label=Mail", "service", "smtp", input: "hunter2").status == 0)
        #expect(try service.daemon.client(["set-keychain-password", "-p", "7391"]).status == 0)
        logind.lock(session: "c7", uid: getuid())
        #expect(service.daemon.waitForLog("its user's session locked").contains("its user's session locked"))
        #expect(try isLocked(service) == "True\n")
        try "7391\n".write(toFile: folder + "/answers", atomically: true, encoding: .utf8)
        let found = try service.secretTool("lookup", "service", "smtp")
        #expect(found.standardOutput == "hunter2", "\(found.standardError)")
    }

    @Test func secretToolSearchWhileLockedLoadsTheLockedItemsAndUnlocksThemThroughThePinentry() throws {
        // libsecret loads each item it finds with one GetAll before it unlocks it: that must answer while locked.
        let folder = try folder("secret-service-locked-search-tool")
        let service = try lockedDaemonHoldingAnItem(pinentryIn: folder)
        let listed = try service.secretTool("search", "service", "smtp")
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.hasPrefix("[/"), "\(listed.standardOutput)")
        #expect(!listed.standardOutput.contains("hunter2"))
        try "7391\n".write(toFile: folder + "/answers", atomically: true, encoding: .utf8)
        let unlocked = try service.secretTool("search", "--unlock", "service", "smtp")
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        #expect(unlocked.standardOutput.contains("secret = hunter2\n"), "\(unlocked.standardOutput)")
        #expect(try isLocked(service) == "False\n")
    }

    @Test func aLockedSearchListsExactlyTheMatchingItemsAndNoneOfAnOptedOutProgram() throws {
        let copies = try folder("secret-service-locked-search")
        let optedOut = copies + "/secret-tool"
        try FileManager.default.copyItem(atPath: "/usr/bin/secret-tool", toPath: optedOut)
        let service = try start(apps: [
            "o.json": [
                "executable": optedOut, "application-identifier": "TEAM.o", "clavis.secret-service.shared": false,
            ]
        ])
        for (label, user, app) in [("a", "anna", "demo"), ("b", "ben", "demo"), ("c", "anna", "other")] {
            let stored = try service.secretTool("store", "--label=\(label)", "app", app, "user", user, input: label)
            #expect(stored.status == 0, "\(stored.standardError)")
        }
        let privately = try runProcess(
            optedOut, ["store", "--label=o", "app", "demo", "user", "anna"], environment: service.bus.environment,
            input: "opted out")
        #expect(privately.status == 0, "\(privately.standardError)")
        // Each search: the unlocked list, then the locked one; a collection's search answers one list.
        let searches = """
            import sys
            from jeepney import DBusAddress, new_method_call, Properties, MessageType, HeaderFields
            from jeepney.io.blocking import open_dbus_connection
            connection = open_dbus_connection(bus="SESSION")
            def address(path, interface):
                return DBusAddress(path, bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret." + interface)
            def call(path, interface, method, signature=None, body=()):
                reply = connection.send_and_get_reply(new_method_call(address(path, interface), method, signature, body))
                if reply.header.message_type == MessageType.error:
                    return "error " + reply.header.fields[HeaderFields.error_name]
                return reply.body
            def search(attributes):
                return [sorted(paths) for paths in call("/org/freedesktop/secrets", "Service", "SearchItems", "a{ss}", (attributes,))]
            print(search({"app": "demo"}))
            print(search({"user": "anna"}))
            print([sorted(call("/org/freedesktop/secrets/collection/login", "Collection", "SearchItems", "a{ss}", ({"app": "demo"},))[0])])
            print(sorted(connection.send_and_get_reply(Properties(address("/org/freedesktop/secrets/collection/login", "Collection")).get("Items")).body[0][1]))
            if sys.argv[-1] == "locked":
                [demo_anna] = search({"app": "demo", "user": "anna"})[1]
                print(connection.send_and_get_reply(Properties(address(demo_anna, "Item")).get("Locked")).body[0][1])
                item = Properties(address(demo_anna, "Item"))
                label = connection.send_and_get_reply(item.get("Label")).body[0][1]
                attributes = connection.send_and_get_reply(item.get("Attributes"))
                print(repr(label), attributes.header.fields.get(HeaderFields.error_name))
                session = call("/org/freedesktop/secrets", "Service", "OpenSession", "sv", ("plain", ("s", "")))[1]
                print(call(demo_anna, "Item", "GetSecret", "o", (session,)))
                print(call("/org/freedesktop/secrets", "Service", "GetSecrets", "aoo", ([demo_anna], session)))
                unlocked, prompt = call("/org/freedesktop/secrets", "Service", "Unlock", "ao", ([demo_anna],))
                print(unlocked, prompt.startswith("/org/freedesktop/secrets/prompt/"))
            """
        func lists(_ state: String) throws -> [String] {
            let run = try service.python(searches.replacingOccurrences(of: "sys.argv[-1]", with: "'\(state)'"))
            #expect(run.status == 0, "\(run.standardError)")
            return run.standardOutput.split(separator: "\n").map(String.init)
        }
        let open = try lists("unlocked")
        #expect(open.count == 4)
        for step in [["set-keychain-password", "-p", "7391"], ["lock-keychain"]] {
            #expect(try service.daemon.client(step).status == 0)
        }
        let locked = try lists("locked")
        #expect(locked.count == 9, "\(locked)")
        guard open.count == 4, locked.count == 9 else { return }
        // The same items, moved to the locked list: the shared client's two demo items and its one of anna's, never
        // the opted-out program's (which holds both pairs).
        func swapped(_ line: String) -> String {
            let halves = line.dropFirst(2).dropLast(2).components(separatedBy: "], [")
            return "[[], [\(halves[0])]]"
        }
        #expect(
            open[0].contains(", ") && open[1].contains(", ") && locked[0] == swapped(open[0]),
            "\(open[0]) then \(locked[0])")
        #expect(locked[1] == swapped(open[1]), "\(open[1]) then \(locked[1])")
        #expect(locked[2] == open[2], "the collection's search lists its items, locked or not")
        #expect(open[3].components(separatedBy: ", ").count == 3 && locked[3] == open[3], "the collection's Items")
        #expect(locked[4] == "True")
        #expect(locked[5] == "'' org.freedesktop.Secret.Error.IsLocked")
        #expect(locked[6] == "error org.freedesktop.Secret.Error.IsLocked")
        #expect(locked[7] == "error org.freedesktop.Secret.Error.IsLocked")
        #expect(locked[8] == "[] True")
    }

    @Test(.preparedKeychain) func theDaemonNamesAClientsLockedItemsThroughItsSocketAndNothingSealed() throws {
        let (service, client) = try startWithThisProcessSharing()
        #expect(try service.secretTool("store", "--label=m", "service", "smtp", input: "hunter2").status == 0)
        #expect(try service.secretTool("store", "--label=o", "service", "imap", input: "other").status == 0)
        let smtp = SecretServiceItem.query(collection: "login", attributes: ["service": "smtp"])
        let stored = try #require(try client.find(smtp).first)
        #expect(try client.service.lockedItemReferences(smtp).isEmpty, "nothing is locked yet")
        try client.setPasscode(SecureBytes(Data("7391".utf8)), current: nil, strength: .cheapForTesting)
        try client.service.lock()
        #expect(try client.service.lockedItemReferences(smtp) == [stored.persistentReference])
        var sealed = smtp
        sealed.attributes[.label] = .string("m")
        #expect(try client.service.lockedItemReferences(sealed) == [stored.persistentReference])
        sealed.attributes[.comment] = .string("sealed with the item")
        do {
            _ = try client.service.lockedItemReferences(sealed)
            Issue.record("a sealed attribute was matched")
        } catch {
            #expect(error.code == .param)
        }
        // The path a locked search answers is the reference's.
        let run = try service.python(
            """
            import secretstorage
            connection = secretstorage.dbus_init()
            print(secretstorage.get_default_collection(connection).is_locked())
            [item] = secretstorage.search_items(connection, {"service": "smtp"})
            print(item.item_path, item.is_locked())
            """)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput
                == "True\n/org/freedesktop/secrets/collection/login/\(SecretServiceItem.id(of: stored.persistentReference)) True\n"
        )
    }
}
