import ClavisTestSupport
import Foundation

/// logind on a system bus of the test's own (`PrivateBus`), played by a Python script speaking its real
/// interface: it owns `org.freedesktop.login1`, answers `org.freedesktop.DBus.Properties.Get` for a session's `User`
/// (`(uo)`), and emits a session's `Lock` or `Unlock`, or the manager's `PrepareForSleep`, when the test says so.
final class ScriptedLogind {
    private let bus: PrivateBus
    private let commands = Pipe()
    /// `DBUS_SYSTEM_BUS_ADDRESS` for processes that should use this bus.
    var environment: [String: String] { bus.environment }

    /// Starts the bus and logind, and returns once logind owns its name.
    init() throws {
        bus = try PrivateBus("logind-bus")
        try bus.startService(named: "logind.py", script: Self.script, input: commands)
    }

    /// Emits `Lock` for session `session` of user `uid`.
    func lock(session: String, uid: UInt32) { send("Lock \(session) \(uid)") }

    /// Emits `Unlock` for session `session` of user `uid`.
    func unlock(session: String, uid: UInt32) { send("Unlock \(session) \(uid)") }

    /// Emits `PrepareForSleep(true)`.
    func sleep() { send("Sleep") }

    /// Stops logind and the bus and removes the folder.
    func stop() { bus.stop() }

    private func send(_ command: String) {
        commands.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    private static let script = #"""
        import sys, threading
        from jeepney import DBusAddress, new_error, new_method_return, new_signal
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection
        from scripted_bus import method_calls

        LOGIN1 = "org.freedesktop.login1"
        connection = open_dbus_connection(bus="SYSTEM")
        connection.send_and_get_reply(message_bus.RequestName(LOGIN1))
        sending = threading.Lock()
        users = {}

        def send(message):
            with sending:
                connection.send(message)

        def commands():
            for line in sys.stdin:
                words = line.split()
                if words[0] == "Sleep":
                    manager = DBusAddress("/org/freedesktop/login1", interface=LOGIN1 + ".Manager")
                    send(new_signal(manager, "PrepareForSleep", "b", (True,)))
                    continue
                member, session, uid = words[0], words[1], int(words[2])
                path = "/org/freedesktop/login1/session/" + session
                users[path] = uid
                send(new_signal(DBusAddress(path, interface=LOGIN1 + ".Session"), member))

        threading.Thread(target=commands, daemon=True).start()
        print("ready", flush=True)
        for call, member, path in method_calls(connection):
            if member == "Get" and call.body == (LOGIN1 + ".Session", "User") and path in users:
                uid = users[path]
                send(new_method_return(call, "v", (("(uo)", (uid, "/org/freedesktop/login1/user/_%d" % uid)),)))
            else:
                send(new_error(call, "org.freedesktop.DBus.Error.UnknownObject", "s", ("no such object",)))
        """#
}
