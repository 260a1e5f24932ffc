import ClavisTestSupport
import Foundation

/// A D-Bus of the test's own (a real `dbus-daemon`, every name and call allowed), in `folder`: a system bus for the
/// services the daemon talks to there (fprintd, logind) played by Python scripts over jeepney, or a session bus for
/// the Secret Service the daemon serves. A process finds the bus through `environment`.
final class PrivateBus {
    /// Which bus it stands in for.
    enum Kind: String {
        case system, session
    }

    let folder: String
    /// `DBUS_SYSTEM_BUS_ADDRESS` or `DBUS_SESSION_BUS_ADDRESS` for processes that should use this bus.
    let environment: [String: String]
    private let bus = Process()
    private var services: [Process] = []

    /// Starts the bus in a new folder and returns once it accepts connections.
    init(_ prefix: String, kind: Kind = .system) throws {
        folder = try makeTemporaryFolder(prefix)
        chmod(folder, 0o755)
        let socket = folder + "/\(kind.rawValue)_bus_socket"
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>\(kind.rawValue)</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*"/>
            <allow receive_sender="*"/>
          </policy>
        </busconfig>
        """.write(toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        environment = [kind == .system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + socket]
        try Self.helpers.write(toFile: folder + "/scripted_bus.py", atomically: true, encoding: .utf8)
        let busOutput = Pipe()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--config-file=" + folder + "/bus.conf", "--nofork", "--print-address=1"]
        bus.standardOutput = busOutput
        try bus.run()
        guard readUntil("\n", on: busOutput).contains("unix:path=") else {
            throw TestDaemon.DaemonFailure(message: "dbus-daemon did not start")
        }
    }

    /// Starts the Python `script` (written to `name` in the folder) on the bus with `arguments` and `input` as its
    /// standard input, and returns once it printed "ready" (once it owns its name).
    func startService(named name: String, script: String, arguments: [String] = [], input: Pipe? = nil) throws {
        try script.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        let output = Pipe()
        let service = Process()
        service.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        service.arguments = [folder + "/" + name] + arguments
        service.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        service.standardOutput = output
        if let input { service.standardInput = input }
        try service.run()
        services.append(service)
        guard readUntil("ready", on: output).contains("ready") else {
            throw TestDaemon.DaemonFailure(message: "the scripted \(name) did not start")
        }
    }

    /// What the scripted services share (`from scripted_bus import method_calls`): their loop over the method calls
    /// they receive.
    private static let helpers = #"""
        from jeepney import HeaderFields, MessageType

        def method_calls(connection):
            """Yields each method call the connection receives, with its member and object path."""
            while True:
                call = connection.receive()
                if call.header.message_type != MessageType.method_call:
                    continue
                yield call, call.header.fields.get(HeaderFields.member), call.header.fields.get(HeaderFields.path)
        """#

    /// Stops the services and the bus and removes the folder. SIGKILL: a process started from a thread pool
    /// inherits its blocked signals, and Python then never sees a SIGTERM.
    func stop() {
        for process in services + [bus] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
