import ClavisTestSupport
import Foundation

/// A system D-Bus of its own (`PrivateBus`) with an fprintd played from a JSON file on it, for clavisd's
/// fprintd sensor: `net.reactivated.Fprint` answers `GetDefaultDevice`, `ListEnrolledFingers`, `Claim`,
/// `VerifyStart` (emitting `VerifyStatus` with the script's next outcome), `VerifyStop` and `Release`, as fprintd
/// does, and writes each call with its user to `calls.log`. A process finds the bus through `environment`.
final class ScriptedFprintd {
    private let bus: PrivateBus
    var folder: String { bus.folder }
    /// `DBUS_SYSTEM_BUS_ADDRESS` for processes that should use this bus.
    var environment: [String: String] { bus.environment }

    /// Starts the bus and fprintd with `enrolled` fingers per user and the `outcomes` of the next verifications
    /// (`verify-match`, `verify-no-match`, ...), and returns once fprintd owns its name.
    init(enrolled: [String: [String]], outcomes: [String]) throws {
        bus = try PrivateBus("fprintd-bus")
        try write(enrolled: enrolled, outcomes: outcomes)
        try bus.startService(named: "fprintd.py", script: Self.script, arguments: [bus.folder])
    }

    /// Rewrites the script: the enrolled fingers per user and the next outcomes.
    func write(enrolled: [String: [String]], outcomes: [String]) throws {
        let script: [String: Any] = ["enrolled": enrolled, "outcomes": outcomes]
        try JSONSerialization.data(withJSONObject: script).write(to: URL(fileURLWithPath: folder + "/script.json"))
    }

    /// The calls fprintd received, one `Member user` line each.
    var calls: [String] {
        ((try? String(contentsOfFile: folder + "/calls.log", encoding: .utf8)) ?? "").split(separator: "\n")
            .map(String.init)
    }

    /// Stops fprintd and the bus and removes the folder.
    func stop() { bus.stop() }

    private static let script = #"""
        import json, sys
        from jeepney import DBusAddress, new_error, new_method_return, new_signal
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection
        from scripted_bus import method_calls

        folder = sys.argv[1]
        DEVICE = "/net/reactivated/Fprint/Device/0"
        ERROR = "net.reactivated.Fprint.Error."
        connection = open_dbus_connection(bus="SYSTEM")
        connection.send_and_get_reply(message_bus.RequestName("net.reactivated.Fprint"))
        print("ready", flush=True)
        claimed = None

        def log(member, user):
            with open(folder + "/calls.log", "a") as calls:
                calls.write(f"{member} {user}\n")

        def script():
            with open(folder + "/script.json") as file:
                return json.load(file)

        for call, member, path in method_calls(connection):
            if member == "GetDefaultDevice":
                connection.send(new_method_return(call, "o", (DEVICE,)))
                continue
            if path != DEVICE:
                connection.send(new_error(call, "org.freedesktop.DBus.Error.UnknownObject", "s", ("no such object",)))
                continue
            if member == "ListEnrolledFingers":
                user = call.body[0]
                log(member, user)
                fingers = script()["enrolled"].get(user, [])
                if fingers:
                    connection.send(new_method_return(call, "as", (fingers,)))
                else:
                    connection.send(new_error(call, ERROR + "NoEnrolledPrints", "s", ("none enrolled",)))
            elif member == "Claim":
                claimed = call.body[0]
                log(member, claimed)
                connection.send(new_method_return(call))
            elif member == "VerifyStart":
                log(member, claimed)
                if claimed is None:
                    connection.send(new_error(call, ERROR + "ClaimDevice", "s", ("claim the device first",)))
                    continue
                state = script()
                outcome = state["outcomes"].pop(0) if state["outcomes"] else "verify-unknown-error"
                with open(folder + "/script.json", "w") as file:
                    json.dump(state, file)
                connection.send(new_method_return(call))
                signal = new_signal(DBusAddress(DEVICE, interface="net.reactivated.Fprint.Device"), "VerifyStatus",
                                    "sb", (outcome, True))
                connection.send(signal)
            elif member in ("VerifyStop", "Release"):
                log(member, claimed)
                if member == "Release":
                    claimed = None
                connection.send(new_method_return(call))
            else:
                connection.send(new_error(call, "org.freedesktop.DBus.Error.UnknownMethod", "s", (member,)))
        """#
}
