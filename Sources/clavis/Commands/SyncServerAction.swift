import ClavisCore
import ClavisSync

/// `sync server-init | server-add-account NAME | server-accounts`: sets up the PostgreSQL database a user's machines
/// sync through (`server-init` on an empty database, by a role that may create schemas and roles) and its accounts,
/// connecting to it directly.
enum SyncServerAction {
    case initialize(database: String)
    case addAccount(String, database: String)
    case listAccounts(database: String)

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            switch self {
            case .initialize(let database):
                let installation = try SyncServerSchema.install(on: try SyncDatabase(connectionString: database))
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
            case .addAccount(let name, let database):
                try SyncServerAccounts.add(name, on: try SyncDatabase(connectionString: database))
                Console.out("\(name) is a sync account: it logs in as PostgreSQL authenticates the role \(name)")
            case .listAccounts(let database):
                let accounts = try SyncServerAccounts.list(on: try SyncDatabase(connectionString: database))
                if context.json {
                    Console.out(ItemFormatter.jsonText(.array(accounts.map { .string($0) })))
                } else {
                    for account in accounts { Console.out(account) }
                }
            }
            return ExitStatus.success
        } catch {
            return context.fail("sync", error)
        }
    }
}
