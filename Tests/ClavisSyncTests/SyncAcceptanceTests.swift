import ClavisTestSupport
import Foundation
import Testing

/// Sync end to end, as a user's machines run it: a real PostgreSQL, a clavisd for each machine (each on its own
/// keychain folder), and the `clavis` command line on each. Every wait is for the receiving daemon to say that a
/// round applied something, then the item is looked at again.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled)) final class SyncAcceptanceTests {
    private let server: PostgresServer
    private var devices: [TestDaemon] = []

    init() throws {
        server = try PostgresServer()
        try server.prepareSync(accounts: ["alice"])
    }

    deinit {
        for device in devices { device.stop() }
    }

    /// The account's database, as each device names it.
    private var database: String { server.connectionString(role: "alice") }

    /// A new machine: its own clavisd and keychain.
    private func machine() throws -> TestDaemon {
        let device = try TestDaemon(mode: "user")
        devices.append(device)
        return device
    }

    /// `clavis --json sync ARGUMENTS` on `device`, its answer parsed; fails the test when the command fails.
    @discardableResult
    private func sync(_ device: TestDaemon, _ arguments: [String], input: String? = nil) throws -> [String: Any] {
        let output = try device.client(["--json", "sync"] + arguments, input: input)
        try #require(output.status == 0, "clavis sync \(arguments.joined(separator: " ")): \(output.standardOutput)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any])
    }

    /// Makes the circle on `first` and has each of `others` join it, approved by `first`; the recovery key.
    private func circle(of first: TestDaemon, joining others: [TestDaemon]) throws -> String {
        let made = try sync(first, ["enable", "--database", database, "--name", "first"])
        for (index, device) in others.enumerated() {
            let code = try #require(
                try sync(device, ["join", "--database", database, "--name", "device-\(index)"])["joinCode"] as? String)
            try sync(first, ["approve", code])
        }
        return try #require(made["recoveryKey"] as? String)
    }

    /// Adds a password on `device`: synchronizable unless `local`.
    private func add(
        _ device: TestDaemon, service: String, secret: String, synchronizable: Bool = true, extra: [String] = []
    ) throws {
        let arguments =
            ["add-generic-password", "-a", "mailbox-owner", "-s", service, "-l", "Label \(service)", "-U"]
            + (synchronizable ? ["--synchronizable"] : []) + extra + ["-w", secret]
        let output = try device.client(arguments)
        try #require(output.status == 0, "\(output.standardError)")
    }

    /// The password of `service` on `device`, or `nil` when it has none.
    private func secret(_ device: TestDaemon, service: String) throws -> String? {
        let output = try device.client(["find-generic-password", "-a", "mailbox-owner", "-s", service, "-w"])
        return output.status == 0 ? output.standardOutput.trimmingCharacters(in: .newlines) : nil
    }

    /// Waits until `device`'s password of `service` is `expected` (`nil`: none), looking again each time its daemon
    /// says a round applied changes from another device; true once it is.
    private func waitUntil(_ device: TestDaemon, service: String, is expected: String?) throws -> Bool {
        for _ in 0..<40 {
            if try secret(device, service: service) == expected { return true }
            guard device.waitForLog(" applied, ", seconds: 20).contains(" applied, ") else { break }
        }
        return try secret(device, service: service) == expected
    }

    @Test func itemsReachEveryMemberAndOnlyTheItemsThatMayLeave() throws {
        let (a, b, c) = (try machine(), try machine(), try machine())
        _ = try circle(of: a, joining: [b, c])
        try add(a, service: "mail", secret: "first-secret")
        try add(a, service: "local-only", secret: "stays-here", synchronizable: false)
        try add(a, service: "this-device", secret: "stays-too", extra: ["--accessible", "cku"])

        // Added on A: on B and C.
        #expect(try waitUntil(b, service: "mail", is: "first-secret"))
        #expect(try waitUntil(c, service: "mail", is: "first-secret"))
        // Updated on B: on A and C.
        try add(b, service: "mail", secret: "changed-on-b")
        #expect(try waitUntil(a, service: "mail", is: "changed-on-b"))
        #expect(try waitUntil(c, service: "mail", is: "changed-on-b"))
        // Deleted on C: gone everywhere.
        #expect(try c.client(["delete-generic-password", "-a", "mailbox-owner", "-s", "mail"]).status == 0)
        #expect(try waitUntil(a, service: "mail", is: nil))
        #expect(try waitUntil(b, service: "mail", is: nil))
        // What may not leave A never did: every round after those has run on B and C.
        for device in [b, c] {
            #expect(try secret(device, service: "local-only") == nil)
            #expect(try secret(device, service: "this-device") == nil)
        }
        #expect(try secret(a, service: "this-device") == "stays-too")
        // Each device lists the three members.
        let members = try #require(try sync(c, ["status"])["members"] as? [[String: Any]])
        #expect(Set(members.compactMap { $0["name"] as? String }) == ["first", "device-0", "device-1"])
    }

    @Test func theServerHoldsNothingInClear() throws {
        let (a, b) = (try machine(), try machine())
        _ = try circle(of: a, joining: [b])
        try add(a, service: "bank-portal", secret: "hunter2-correct-horse")
        #expect(try waitUntil(b, service: "bank-portal", is: "hunter2-correct-horse"))
        let group = try #require(
            (try JSONSerialization.jsonObject(
                with: Data(try a.client(["--json", "status"]).standardOutput.utf8)) as? [String: Any])?["accessGroups"]
                as? [String])
        let dump = try PostgresServer.run(
            "/usr/lib/postgresql/15/bin/pg_dump",
            ["--host", server.folder, "--username", server.administrator, "--data-only", "postgres"])
        #expect(dump.contains("clavis_sync"), "the dump holds the sync schema's tables")
        for clear in ["hunter2-correct-horse", "bank-portal", "mailbox-owner", "Label bank-portal"] + group {
            let hex = clear.utf8.map { String(format: "%02x", $0) }.joined()
            #expect(!dump.contains(clear) && !dump.contains(hex), "the server's tables hold \(clear)")
        }
    }

    @Test func joiningNeedsApprovalAndARemovedDeviceReadsNothingAfter() throws {
        let (a, b, c) = (try machine(), try machine(), try machine())
        _ = try circle(of: a, joining: [b])
        try add(a, service: "before", secret: "before-removal")

        // C asks to join: nothing reaches it until a member approves, and only its own code approves it.
        let code = try #require(
            try sync(c, ["join", "--database", database, "--name", "third"])["joinCode"] as? String)
        try sync(c, ["now"])
        #expect(try secret(c, service: "before") == nil)
        #expect(try sync(c, ["status"])["state"] as? String == "joining")
        #expect(try b.client(["sync", "approve", "AAAAA-AAAAA"]).status != 0)
        try sync(b, ["approve", code])
        #expect(try waitUntil(c, service: "before", is: "before-removal"))

        // Removed, C reads nothing written after, and says why.
        try sync(a, ["remove", "third"])
        try add(a, service: "after", secret: "after-removal")
        #expect(try waitUntil(b, service: "after", is: "after-removal"))
        #expect(c.waitForLog("removed from the sync circle").contains("removed from the sync circle"))
        #expect(try secret(c, service: "after") == nil)
        #expect((try sync(c, ["status"])["lastError"] as? String)?.contains("removed") == true)
    }

    @Test func theRecoveryKeyAloneBringsEveryItemBack() throws {
        let (a, b) = (try machine(), try machine())
        let recoveryKey = try circle(of: a, joining: [b])
        try add(a, service: "kept-one", secret: "first")
        try add(b, service: "kept-two", secret: "second")
        #expect(try waitUntil(a, service: "kept-two", is: "second"))
        // Every device is lost.
        for device in [a, b] { device.stop() }
        devices.removeAll()

        let fresh = try machine()
        // A wrong key is refused; the right one, typed on standard input, joins.
        #expect(
            try fresh.client(
                ["sync", "recover", "--database", database],
                input: String(repeating: "0000-", count: 12) + "0000\n"
            ).status != 0)
        let recovered = try sync(
            fresh, ["recover", "--database", database, "--name", "new"], input: recoveryKey + "\n")
        #expect(recovered["state"] as? String == "syncing")
        #expect(try waitUntil(fresh, service: "kept-one", is: "first"))
        #expect(try waitUntil(fresh, service: "kept-two", is: "second"))
    }

    @Test func twoDevicesEditingOfflineConvergeOnTheNewerChange() throws {
        let (a, b) = (try machine(), try machine())
        _ = try circle(of: a, joining: [b])
        try add(a, service: "shared", secret: "original")
        #expect(try waitUntil(b, service: "shared", is: "original"))
        // Both offline (paused); A changes it, then B later.
        for device in [a, b] { try sync(device, ["disable"]) }
        try add(a, service: "shared", secret: "older-from-a")
        try add(b, service: "shared", secret: "newer-from-b")
        // Back online: the newer change wins on both.
        for device in [a, b] { try sync(device, ["enable"]) }
        #expect(try waitUntil(a, service: "shared", is: "newer-from-b"))
        #expect(try waitUntil(b, service: "shared", is: "newer-from-b"))
    }

    @Test func changesMadeWhileTheServerIsAwayGoOutWhenItReturns() throws {
        let (a, b) = (try machine(), try machine())
        _ = try circle(of: a, joining: [b])
        try add(a, service: "before", secret: "while-up")
        #expect(try waitUntil(b, service: "before", is: "while-up"))
        try server.stop()
        // Local work goes on; the round that cannot reach the server says so.
        try add(a, service: "offline", secret: "queued-on-a")
        #expect(try secret(a, service: "offline") == "queued-on-a")
        #expect(try a.client(["sync", "now"]).status != 0)
        #expect((try sync(a, ["status"])["lastError"] as? String)?.isEmpty == false)
        try server.start()
        #expect(try waitUntil(b, service: "offline", is: "queued-on-a"))
    }

    @Test func aNormalUsersDaemonsSyncAsThatUser() throws {
        let user = try SecondUser()
        defer { user.remove() }
        let (a, b) = (try TestDaemon(mode: "user", owner: user), try TestDaemon(mode: "user", owner: user))
        devices += [a, b]
        func asUser(_ device: TestDaemon, _ arguments: [String]) throws -> ProcessOutput {
            var environment = ClavisBinary.environment(home: device.folder + "/unused-home")
            environment["CLAVIS_SOCKET"] = device.socket
            return try runProcess(
                "/usr/bin/setpriv",
                ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--", ClavisBinary.path] + arguments,
                environment: environment)
        }
        #expect(try asUser(a, ["sync", "enable", "--database", database]).status == 0)
        let joined = try asUser(b, ["--json", "sync", "join", "--database", database])
        let code = try #require(
            (try JSONSerialization.jsonObject(with: Data(joined.standardOutput.utf8)) as? [String: Any])?["joinCode"]
                as? String, "\(joined.standardError)")
        #expect(try asUser(a, ["sync", "approve", code]).status == 0)
        let added = try asUser(
            a, ["add-generic-password", "-a", "mailbox-owner", "-s", "users-item", "--synchronizable", "-w", "theirs"])
        #expect(added.status == 0, "\(added.standardError)")
        let find = ["find-generic-password", "-a", "mailbox-owner", "-s", "users-item", "-w"]
        var arrived = false
        for _ in 0..<40 where !arrived {
            arrived = try asUser(b, find).standardOutput == "theirs\n"
            if !arrived, !b.waitForLog(" applied, ", seconds: 20).contains(" applied, ") { break }
        }
        #expect(arrived)
    }

    @Test func anEmbeddedKeychainSyncsOnSyncNow() throws {
        let folder = try makeTemporaryFolder("clavis-embedded-sync")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (a, b) = (folder + "/a", folder + "/b")
        func clavis(_ home: String, _ arguments: [String]) throws -> ProcessOutput {
            try ClavisBinary.run(arguments, home: home)
        }
        #expect(try clavis(a, ["sync", "enable", "--database", database, "--name", "a"]).status == 0)
        let joined = try clavis(b, ["--json", "sync", "join", "--database", database, "--name", "b"])
        let code = try #require(
            (try JSONSerialization.jsonObject(with: Data(joined.standardOutput.utf8)) as? [String: Any])?["joinCode"]
                as? String, "\(joined.standardError)")
        #expect(try clavis(a, ["sync", "approve", code]).status == 0)
        let added = ["add-generic-password", "-a", "mailbox-owner", "-s", "embedded", "--synchronizable", "-w", "sent"]
        #expect(try clavis(a, added).status == 0)
        // No daemon: nothing moves until a round is asked for, on each side.
        let find = ["find-generic-password", "-a", "mailbox-owner", "-s", "embedded", "-w"]
        #expect(try clavis(b, find).status != 0)
        let status = try clavis(a, ["sync", "status"])
        #expect(status.standardOutput.contains("clavis sync now"), "\(status.standardOutput)")
        #expect(try clavis(a, ["sync", "now"]).status == 0)
        #expect(try clavis(b, ["sync", "now"]).status == 0)
        #expect(try clavis(b, find).standardOutput == "sent\n")
    }

    /// The server alters a record's ciphertext, puts back an older version of it, drops it, or adds one no member
    /// signed: each client refuses the change, keeps what it had, and says why.
    @Test(arguments: [
        ("altered", "signature does not verify"),
        ("replayed", "no longer holds version 2 of the last record device 'first' wrote"),
        ("dropped", "no longer holds version 2 of the last record device 'first' wrote"),
        ("forged", "written by a device outside the circle"),
    ])
    func whatTheServerChangesIsRefusedWithAClearError(_ change: String, because reason: String) throws {
        let (a, b) = (try machine(), try machine())
        _ = try circle(of: a, joining: [b])
        try add(a, service: "first", secret: "arrives")
        #expect(try waitUntil(b, service: "first", is: "arrives"))
        // A writes version 1 of an item, which the server keeps a copy of, then version 2; B gets version 2.
        try add(a, service: "second", secret: "version-1")
        try sync(a, ["now"])
        let administrator = try server.connect()
        let newest = "(SELECT max(change) FROM clavis_sync.records)"
        try administrator.execute("CREATE TABLE kept AS SELECT * FROM clavis_sync.records WHERE change = \(newest)")
        try add(a, service: "second", secret: "version-2")
        try sync(a, ["now"])
        #expect(try waitUntil(b, service: "second", is: "version-2"))
        // B's rounds run only when the test asks, from here on.
        try sync(b, ["disable"])
        switch change {
        case "altered":
            try administrator.execute(
                """
                UPDATE clavis_sync.records SET ciphertext = set_byte(ciphertext, 40, get_byte(ciphertext, 40) # 1),
                    change = nextval('clavis_sync.changes')
                WHERE change = \(newest)
                """)
        case "replayed":
            try administrator.execute(
                """
                UPDATE clavis_sync.records r SET version = k.version, writer = k.writer, ciphertext = k.ciphertext,
                    signature = k.signature, change = nextval('clavis_sync.changes')
                FROM kept k WHERE r.account = k.account AND r.record_id = k.record_id
                """)
        case "dropped":
            try administrator.execute("DELETE FROM clavis_sync.records WHERE change = \(newest)")
        default:
            try administrator.execute(
                """
                INSERT INTO clavis_sync.records (account, record_id, version, writer, ciphertext, signature)
                SELECT account, sha256('forged'::bytea), 1, sha256('stranger'::bytea), ciphertext, signature FROM kept
                """)
        }
        try sync(b, ["enable"])
        let refused = try b.client(["sync", "now"])
        #expect(refused.status != 0, "B applied a record the server \(change)")
        #expect(refused.standardError.contains(reason), "\(refused.standardError)")
        #expect(try secret(b, service: "second") == "version-2")
        #expect((try sync(b, ["status"])["lastError"] as? String)?.contains(reason) == true)
    }
}
