import ClavisCore
import ClavisSync

/// `sync`: this device's sync (`status`, `enable`, `join`, `approve`, `remove`, `recover`, `disable`, `now`),
/// carried out by the keychain service (clavisd, which then syncs in the background), and the PostgreSQL database a
/// user's machines sync through (`server-init`, `server-add-account`, `server-accounts`, run against the database
/// directly). The database is named by `--database` in libpq's syntax; a password belongs in `~/.pgpass` or
/// `PGPASSWORD`, never on the command line.
struct SyncCommandLine: RunnableCommand {
    enum Action {
        case device(SyncDeviceAction)
        case server(SyncServerAction)
    }

    var action: Action

    static let descriptor = CommandDescriptor(
        name: "sync",
        summary: "Sync items marked synchronizable between your machines, through PostgreSQL.",
        options: [
            OptionSpec(
                flag: "--database", valueName: "conninfo",
                help:
                    "the database, in libpq's syntax (host=… dbname=… user=…; server commands: default the PG* environment)"
            ),
            OptionSpec(
                flag: "--name", valueName: "name",
                help: "enable, join, recover: this device's name (default: its host name)"),
            OptionSpec(flag: "--forget", help: "disable: also forget this device's keys and circle"),
        ],
        operands:
            "status | enable | join | approve CODE | remove DEVICE | recover | disable | now | server-init"
            + " | server-add-account NAME | server-accounts",
        usesItems: false
    ) { (parsed) throws(UsageError) in
        let database = parsed.value("--database") ?? ""
        if SyncConnectionString.carriesPassword(database) {
            throw UsageError(
                message: "sync: put the database password in ~/.pgpass or PGPASSWORD, not on the command line")
        }
        let name = parsed.value("--name") ?? SyncDeviceAction.hostName
        let operands = parsed.operands
        switch (operands.first, operands.count) {
        case ("server-init", 1): return SyncCommandLine(action: .server(.initialize(database: database)))
        case ("server-add-account", 2):
            return SyncCommandLine(action: .server(.addAccount(operands[1], database: database)))
        case ("server-accounts", 1): return SyncCommandLine(action: .server(.listAccounts(database: database)))
        case ("server-add-account", _): throw UsageError(message: "sync server-add-account needs the account's name")
        case ("status", 1), (nil, 0): return SyncCommandLine(action: .device(.command(.status)))
        case ("enable", 1):
            return SyncCommandLine(action: .device(.command(.enable(server: database, deviceName: name))))
        case ("join", 1), ("recover", 1):
            guard !database.isEmpty else { throw UsageError(message: "sync \(operands[0]) needs --database") }
            return SyncCommandLine(
                action: .device(
                    operands[0] == "join"
                        ? .command(.join(server: database, deviceName: name))
                        : .recover(server: database, deviceName: name)))
        case ("approve", 2): return SyncCommandLine(action: .device(.command(.approve(code: operands[1]))))
        case ("remove", 2): return SyncCommandLine(action: .device(.command(.remove(device: operands[1]))))
        case ("disable", 1): return SyncCommandLine(action: .device(.command(.disable(forget: parsed.has("--forget")))))
        case ("now", 1): return SyncCommandLine(action: .device(.command(.now)))
        case ("approve", _): throw UsageError(message: "sync approve needs the code the joining device shows")
        case ("remove", _): throw UsageError(message: "sync remove needs the device's name or identifier")
        default:
            throw UsageError(
                message: "sync needs status, enable, join, approve CODE, remove DEVICE, recover, disable, now, "
                    + "server-init, server-add-account NAME or server-accounts")
        }
    }

    func run(_ context: CommandContext) -> Int32 {
        switch action {
        case .device(let action): action.run(context)
        case .server(let action): action.run(context)
        }
    }
}
