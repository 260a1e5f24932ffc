import ClavisClient
import ClavisCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `sync status | enable | join | approve | remove | recover | disable | now`: a command on this device's sync,
/// carried out by the keychain service, and how sync stands after it.
enum SyncDeviceAction {
    /// A command as given.
    case command(SyncCommand)
    /// `recover`: the recovery key is read first (typed at a terminal, or one line of standard input), never taken
    /// from the command line.
    case recover(server: String, deviceName: String)

    func run(_ context: CommandContext) -> Int32 {
        let command: SyncCommand
        switch self {
        case .command(let given):
            command = given
        case .recover(let server, let name):
            guard let key = Console.readSecret(prompt: "recovery key: ", confirming: false), !key.isEmpty else {
                return SecretSource.reportMissing("recovery key", flag: "standard input")
            }
            command = .recover(server: server, deviceName: name, recoveryKey: key)
        }
        do throws(KeychainError) {
            let status = try KeychainClient().sync(command)
            if context.json {
                Console.out(ItemFormatter.jsonText(Self.json(status)))
            } else {
                Self.describe(status, after: command)
            }
            return ExitStatus.success
        } catch {
            return context.fail("sync", error)
        }
    }

    /// This machine's host name, the name a device gets unless `--name` gives one.
    static var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "device" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Prints how sync stands, and first what the user must do after `command`: keep the recovery key, compare the
    /// join code.
    private static func describe(_ status: SyncStatus, after command: SyncCommand) {
        if let recoveryKey = status.recoveryKey {
            Console.out("Recovery key, shown this once: write it down and keep it apart from your devices.")
            Console.out("With it a new device gets your synced items back when no other device is left:")
            Console.out("    " + String(decoding: recoveryKey.unprotectedBytes(), as: UTF8.self))
            Console.out("")
        }
        if case .join = command, let code = status.joinCode {
            Console.out("On a device that syncs already, run: clavis sync approve \(code)")
            Console.out("(approve it only if this code is the one shown here)")
            Console.out("")
        }
        Console.out("sync: \(status.state.rawValue)")
        if let device = status.device { Console.out("device: \(device.name) (\(device.identifier.prefix(16)))") }
        if let server = status.server { Console.out("server: \(server)") }
        if let code = status.joinCode { Console.out("join code: \(code)") }
        for member in status.members {
            let mark = member == status.device ? " (this device)" : ""
            Console.out("member: \(member.name) \(member.identifier.prefix(16))\(mark)")
        }
        if let round = status.lastRound {
            Console.out(
                "last round: \(round.ended.formatted(.iso8601)): \(round.applied) applied, \(round.sent) sent, "
                    + "\(round.kept) kept, \(round.refused) refused")
        }
        if let error = status.lastError { Console.out("last error: \(error)") }
        if status.state == .syncing {
            Console.out(
                status.runsInBackground
                    ? "rounds: clavisd runs them after each change and when another device writes"
                    : "rounds: run on `clavis sync now` (the keychain is embedded: start clavisd to sync by itself)")
        }
    }

    /// How sync stands, as `--json` prints it.
    private static func json(_ status: SyncStatus) -> JSONValue {
        func device(_ device: SyncStatus.Device) -> JSONValue {
            .object(["identifier": .string(device.identifier), "name": .string(device.name)])
        }
        var object: [String: JSONValue] = [
            "state": .string(status.state.rawValue), "members": .array(status.members.map(device)),
            "runsInBackground": .bool(status.runsInBackground),
        ]
        if let server = status.server { object["server"] = .string(server) }
        if let this = status.device { object["device"] = device(this) }
        if let code = status.joinCode { object["joinCode"] = .string(code) }
        if let round = status.lastRound {
            object["lastRound"] = .object([
                "ended": .string(round.ended.formatted(.iso8601)), "applied": .integer(round.applied),
                "sent": .integer(round.sent), "kept": .integer(round.kept), "refused": .integer(round.refused),
            ])
        }
        if let error = status.lastError { object["lastError"] = .string(error) }
        if let recoveryKey = status.recoveryKey {
            object["recoveryKey"] = .string(String(decoding: recoveryKey.unprotectedBytes(), as: UTF8.self))
        }
        return .object(object)
    }
}
