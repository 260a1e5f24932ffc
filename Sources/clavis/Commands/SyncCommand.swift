import ClavisCore
import ClavisSync

/// `sync server-init | server-add-account NAME | server-accounts`: sets up the PostgreSQL database a user's machines
/// sync through (`clavis sync server-init` on an empty database, by a role that may create schemas and roles) and
/// its accounts. The database is named by `--database` in libpq's syntax or by the `PG*` environment; a password
/// belongs in `~/.pgpass` or `PGPASSWORD`, never on the command line.
struct SyncCommand: RunnableCommand {
    enum Action {
        case serverInit
        case addAccount(String)
        case listAccounts
    }

    var action: Action
    var database: String

    static let descriptor = CommandDescriptor(
        name: "sync",
        summary: "Set up the PostgreSQL database a user's machines sync through, and its accounts.",
        options: [
            OptionSpec(
                flag: "--database", valueName: "conninfo",
                help: "the database, in libpq's syntax (host=… dbname=… user=…); default: the PG* environment")
        ],
        operands: "server-init | server-add-account NAME | server-accounts", usesItems: false
    ) { (parsed) throws(UsageError) in
        let database = parsed.value("--database") ?? ""
        if SyncCommand.carriesPassword(database) {
            throw UsageError(
                message: "sync: put the database password in ~/.pgpass or PGPASSWORD, not on the command line")
        }
        switch (parsed.operands.first, parsed.operands.count) {
        case ("server-init", 1): return SyncCommand(action: .serverInit, database: database)
        case ("server-add-account", 2): return SyncCommand(action: .addAccount(parsed.operands[1]), database: database)
        case ("server-accounts", 1): return SyncCommand(action: .listAccounts, database: database)
        case ("server-add-account", _): throw UsageError(message: "sync server-add-account needs the account's name")
        default: throw UsageError(message: "sync needs server-init, server-add-account NAME or server-accounts")
        }
    }

    /// True for a connection string with a password in it: a `password` keyword, or a URI's `user:password@`.
    static func carriesPassword(_ database: String) -> Bool {
        if database.contains("password") { return true }
        guard let scheme = database.firstRange(of: "://") else { return false }
        let authority = database[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return false }
        return authority[..<at].contains(":")
    }

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            let connection = try SyncDatabase(connectionString: database)
            switch action {
            case .serverInit:
                let installation = try SyncServerSchema.install(on: connection)
                if context.json {
                    let versions: JSONValue = .object([
                        "from": .integer(installation.from), "to": .integer(installation.to),
                    ])
                    Console.out(ItemFormatter.jsonText(versions))
                } else if installation.from == installation.to {
                    Console.out("the sync schema is at version \(installation.to) already")
                } else {
                    Console.out("the sync schema is at version \(installation.to) (was \(installation.from))")
                }
            case .addAccount(let name):
                try SyncServerAccounts.add(name, on: connection)
                Console.out("\(name) is a sync account: it logs in as PostgreSQL authenticates the role \(name)")
            case .listAccounts:
                let accounts = try SyncServerAccounts.list(on: connection)
                if context.json {
                    Console.out(ItemFormatter.jsonText(.array(accounts.map { .string($0) })))
                } else {
                    for account in accounts { Console.out(account) }
                }
            }
            return ExitStatus.success
        } catch {
            return context.fail("clavis sync", error)
        }
    }
}
