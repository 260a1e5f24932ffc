import ClavisTestSupport
import Foundation
import Testing

/// clavisd's Secret Service called method by method through `jeepney` (a D-Bus library with no Secret Service logic
/// of its own): collections, aliases, signals, lock and unlock, sessions, and the specification's errors.
@Suite(.serialized) final class SecretServiceProtocolTests {
    private var daemons: [SecretServiceDaemon] = []

    deinit {
        for daemon in daemons { daemon.stop() }
    }

    /// Runs `script` after a prelude defining `connection`, `root`, `service`, `address(path, interface)`,
    /// `answer(message)` (the reply's body, or its error's name), `call(message)` (the body; an error fails the
    /// script) and `listen(interface, member)` (a match rule for that signal, added on the bus).
    private func run(_ script: String) throws -> ProcessOutput {
        let daemon = try SecretServiceDaemon()
        daemons.append(daemon)
        return try daemon.python(
            """
            from jeepney import DBusAddress, new_method_call, HeaderFields, MessageType, Properties
            from jeepney.bus_messages import message_bus, MatchRule
            from jeepney.io.blocking import open_dbus_connection
            connection = open_dbus_connection(bus="SESSION")
            root = "/org/freedesktop/secrets"
            def address(path, interface):
                return DBusAddress(path, bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret." + interface)
            service = address(root, "Service")
            def answer(message):
                reply = connection.send_and_get_reply(message)
                if reply.header.message_type == MessageType.error:
                    return reply.header.fields[HeaderFields.error_name]
                return reply.body
            def call(message):
                reply = connection.send_and_get_reply(message)
                assert reply.header.message_type != MessageType.error, reply.header.fields.get(HeaderFields.error_name)
                return reply.body
            def listen(interface, member):
                rule = MatchRule(type="signal", interface="org.freedesktop.Secret." + interface, member=member)
                call(message_bus.AddMatch(rule))
                return rule

            """ + script)
    }

    @Test func collectionsAliasesSignalsLockingAndSessionsBehaveAsTheSpecificationSays() throws {
        let output = try run(
            """
            def new_item(label, attributes, secret, content_type):
                properties = {"org.freedesktop.Secret.Item.Label": ("s", label),
                              "org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes)}
                return (properties, (session, b"", secret, content_type), False)
            print(call(new_method_call(service, "ReadAlias", "s", ("default",))), call(new_method_call(service, "ReadAlias", "s", ("other",))))
            with connection.filter(listen("Service", "CollectionCreated")) as signals:
                label = {"org.freedesktop.Secret.Collection.Label": ("s", "Work Mail")}
                collection, prompt = call(new_method_call(service, "CreateCollection", "a{sv}s", (label, "")))
                print(collection, prompt, connection.recv_until_filtered(signals, timeout=30).body == (collection,))
            print(call(Properties(service).get("Collections")))
            work = address(collection, "Collection")
            print(call(Properties(work).get("Label")))
            _, session = call(new_method_call(service, "OpenSession", "sv", ("plain", ("s", ""))))
            with connection.filter(listen("Collection", "ItemCreated")) as signals:
                item, _ = call(new_method_call(work, "CreateItem", "a{sv}(oayays)b", new_item("one", {"k": "1"}, b"first", "text/plain")))
                signal = connection.recv_until_filtered(signals, timeout=30)
                print(signal.header.fields[HeaderFields.path] == collection, signal.body == (item,))
            login = address(root + "/aliases/default", "Collection")
            other, _ = call(new_method_call(login, "CreateItem", "a{sv}(oayays)b", new_item("two", {"k": "2"}, b"second", "application/octet-stream")))
            secrets = call(new_method_call(service, "GetSecrets", "aoo", ([item, other, root + "/collection/login/missing"], session)))[0]
            print(sorted((path == item, secret[2], secret[3]) for path, secret in secrets.items()))
            print(call(new_method_call(service, "SearchItems", "a{ss}", ({"k": "1"},))) == ([item], []))
            print(call(Properties(work).get("Items")) == (("ao", [item]),))
            introspectable = DBusAddress(collection, bus_name="org.freedesktop.secrets", interface="org.freedesktop.DBus.Introspectable")
            print('<node name="%s"/>' % item.rsplit("/", 1)[1] in call(new_method_call(introspectable, "Introspect"))[0])
            print(call(new_method_call(service, "Lock", "ao", ([collection],))), call(Properties(work).get("Locked")))
            print(call(new_method_call(service, "Unlock", "ao", ([collection],))), call(Properties(work).get("Locked")))
            with connection.filter(listen("Service", "CollectionDeleted")) as signals:
                print(call(new_method_call(work, "Delete")), connection.recv_until_filtered(signals, timeout=30).body == (collection,))
            print(call(new_method_call(service, "SearchItems", "a{ss}", ({"k": "1"},))), call(Properties(service).get("Collections")))
            call(new_method_call(address(session, "Session"), "Close"))
            print(answer(new_method_call(service, "GetSecrets", "aoo", ([other], session))))
            """)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardOutput == """
                ('/org/freedesktop/secrets/collection/login',) ('/',)
                /org/freedesktop/secrets/collection/Work_Mail / True
                (('ao', ['/org/freedesktop/secrets/collection/login', '/org/freedesktop/secrets/collection/session', '/org/freedesktop/secrets/collection/Work_Mail']),)
                (('s', 'Work Mail'),)
                True True
                [(False, b'second', 'application/octet-stream'), (True, b'first', 'text/plain')]
                True
                True
                True
                (['/org/freedesktop/secrets/collection/Work_Mail'], '/') (('b', True),)
                (['/org/freedesktop/secrets/collection/Work_Mail'], '/') (('b', False),)
                ('/',) True
                ([], []) (('ao', ['/org/freedesktop/secrets/collection/login', '/org/freedesktop/secrets/collection/session']),)
                org.freedesktop.Secret.Error.NoSession

                """)
    }

    @Test func badCallsAnswerTheSpecificationsErrorsAndTheServiceGoesOn() throws {
        let output = try run(
            """
            print(answer(new_method_call(service, "OpenSession", "sv", ("nope", ("s", "")))))
            print(answer(new_method_call(service, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", b"\\x01")))))
            print(answer(new_method_call(service, "OpenSession", "s", ("plain",))))
            print(answer(new_method_call(service, "GetSecrets", "ao", ([],))))
            print(answer(new_method_call(service, "GetSecrets", "aoo", ([], root + "/session/999"))))
            output, session = call(new_method_call(service, "OpenSession", "sv", ("plain", ("s", ""))))
            item = address(root + "/collection/login/nothere", "Item")
            print(answer(new_method_call(item, "GetSecret", "o", (session,))))
            print(answer(Properties(address(root + "/collection/nosuch", "Collection")).get("Label")))
            login = address(root + "/aliases/default", "Collection")
            secret = (root + "/session/999", b"", b"x", "text/plain")
            print(answer(new_method_call(login, "CreateItem", "a{sv}(oayays)b", ({}, secret, False))))
            secret = (session, b"", b"x", "text/plain")
            print(call(new_method_call(login, "CreateItem", "a{sv}(oayays)b", ({}, secret, False)))[0].startswith(root + "/collection/login/"))
            print(call(Properties(login).get("Label")))
            """)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardOutput == """
                org.freedesktop.DBus.Error.NotSupported
                org.freedesktop.DBus.Error.InvalidArgs
                org.freedesktop.DBus.Error.InvalidArgs
                org.freedesktop.DBus.Error.InvalidArgs
                org.freedesktop.Secret.Error.NoSession
                org.freedesktop.DBus.Error.UnknownMethod
                org.freedesktop.DBus.Error.UnknownMethod
                org.freedesktop.Secret.Error.NoSession
                True
                (('s', 'Login'),)

                """)
    }
}
