import ClavisCore
import ClavisSync
import ClavisTestSupport
import Foundation
import Testing

/// `clavis sync server-init`, `server-add-account` and `server-accounts`, the real binary against a real PostgreSQL,
/// with the database named by `--database` or by the `PG*` environment.
@Suite(.serialized) struct SyncServerCommandTests {
    /// The `clavis` binary built beside this test bundle.
    private let clavis = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("clavis").path

    @Test func anOperatorSetsUpTheServerAndItsAccounts() throws {
        let server = try PostgresServer()
        let database = server.connectionString()
        let first = try PostgresServer.spawn(clavis, ["sync", "server-init", "--database", database])
        #expect(first.status == 0)
        #expect(first.output == "the sync schema is at version \(SyncServerSchema.currentVersion) (was 0)\n")
        // Again, from the PG* environment alone: nothing to do.
        let environment = ["PGHOST": server.folder, "PGDATABASE": "postgres", "PGUSER": server.administrator]
        let again = try PostgresServer.spawn(clavis, ["--json", "sync", "server-init"], environment: environment)
        #expect(again.status == 0)
        let installation = try JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Int]
        #expect(installation == ["from": SyncServerSchema.currentVersion, "to": SyncServerSchema.currentVersion])

        for name in ["bob", "alice"] {
            let added = try PostgresServer.spawn(
                clavis, ["sync", "server-add-account", name], environment: environment)
            #expect(added.status == 0, "\(added.output)")
        }
        let listed = try PostgresServer.spawn(clavis, ["sync", "server-accounts"], environment: environment)
        #expect(listed.status == 0 && listed.output == "alice\nbob\n")
        // The account logs in and reaches the schema.
        let alice = try server.connect(as: "alice")
        #expect(try alice.execute("SELECT count(*) FROM clavis_sync.records").first?[0].integer == 0)

        // A normal user runs the command as well; an account may not change the server.
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", clavis]
        let byNobody = try PostgresServer.spawn(
            "/usr/bin/setpriv", asNobody + ["sync", "server-accounts"], environment: environment)
        #expect(byNobody.status == 0 && byNobody.output == "alice\nbob\n")
        var asAlice = environment
        asAlice["PGUSER"] = "alice"
        let refused = try PostgresServer.spawn(
            "/usr/bin/setpriv", asNobody + ["sync", "server-add-account", "mallory"], environment: asAlice)
        #expect(refused.status == 30, "missingEntitlement: \(refused.output)")
        #expect(try SyncServerAccounts.list(on: server.connect()) == ["alice", "bob"])
    }

    @Test func badInputGetsAOneLineErrorAndItsExitStatus() throws {
        let server = try PostgresServer()
        let environment = ["PGHOST": server.folder, "PGDATABASE": "postgres", "PGUSER": server.administrator]
        // A password on the command line is refused before anything connects.
        let password = try PostgresServer.spawn(
            clavis, ["sync", "server-init", "--database", "host=\(server.folder) password=hunter2"])
        #expect(password.status == 2)
        #expect(password.output.contains("~/.pgpass") && !password.output.contains("hunter2"))
        let inURI = try PostgresServer.spawn(
            clavis, ["sync", "server-init", "--database", "postgresql://admin:hunter2@localhost/clavis"])
        #expect(inURI.status == 2 && !inURI.output.contains("hunter2"))
        let name = try PostgresServer.spawn(
            clavis, ["sync", "server-add-account", "Robert'); DROP TABLE x;--"], environment: environment)
        #expect(name.status == Int32(UInt8(truncatingIfNeeded: errSecParamStatus)))
        #expect(name.output.split(separator: "\n").count == 1 && name.output.contains("is not a plain name"))
        // A server that is not there: one line naming it.
        let missing = try PostgresServer.spawn(
            clavis, ["sync", "server-init", "--database", "host=\(server.folder)/nowhere dbname=postgres"])
        #expect(missing.status != 0 && missing.status != 2)
        #expect(missing.output.split(separator: "\n").count == 1)
        #expect(missing.output.contains("cannot reach the sync database"))
        // A server schema newer than this build: refused, nothing changed.
        let administrator = try server.connect()
        _ = try SyncServerSchema.install(on: administrator)
        try administrator.execute("UPDATE clavis_sync.schema_version SET version = 99")
        let newer = try PostgresServer.spawn(clavis, ["sync", "server-init"], environment: environment)
        #expect(newer.status != 0 && newer.output.contains("schema version 99, newer than this build's"))
        let unknown = try PostgresServer.spawn(clavis, ["sync", "join"], environment: environment)
        #expect(unknown.status == 2)
    }

    /// errSecParam, whose low byte is the command line's exit status for bad input.
    private let errSecParamStatus: Int32 = -50
}
