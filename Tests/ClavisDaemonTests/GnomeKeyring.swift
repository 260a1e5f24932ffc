import ClavisTestSupport
import Foundation

/// gnome-keyring on a bus of its own, unlocked with a passphrase, its data in the bus's folder.
final class GnomeKeyring {
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

    /// Runs the Python `script` against gnome-keyring.
    func python(_ script: String) throws -> ProcessOutput {
        try runProcess("/usr/bin/python3", ["-c", script], environment: environment)
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
