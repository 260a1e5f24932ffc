import ClavisCore
import ClavisTestSupport
import Foundation
import Testing

@testable import ClavisServer

/// clavisd's access log: every request it serves is recorded with the caller the kernel names, the items by
/// reference and the status, in its state folder and in the journal, and `clavis log` shows each user their own.
@Suite(.serialized) final class DaemonAccessLogTests {
    private var daemons: [TestDaemon] = []
    private var journal: JournalListener?

    deinit {
        for daemon in daemons { daemon.stop() }
        journal?.stop()
    }

    /// One entry of `clavis --json log`.
    private struct Entry: Decodable {
        var executable: String?
        var application: String?
        var operation: String
        var `class`: String?
        var accessGroups: [String]
        var items: [String]
        var status: Int32
        var uid: UInt32
    }

    private func entries(_ output: ProcessOutput) throws -> [Entry] {
        #expect(output.status == 0, "\(output.standardError)")
        return try JSONDecoder().decode([Entry].self, from: Data(output.standardOutput.utf8))
    }

    @Test func everyRequestIsRecordedWithItsCallerAndStatusAndNeverAValue() throws {
        let journal = try JournalListener()
        self.journal = journal
        let staging = try TestDaemon(mode: "user")
        daemons.append(staging)
        let a = try staging.copyOfClavis(named: "app-a")
        let b = try staging.copyOfClavis(named: "app-b")
        let viewer = try staging.copyOfClavis(named: "viewer")
        staging.kill()
        let daemon = try TestDaemon(
            mode: "system",
            apps: [
                "a.json": ["executable": a, "application-identifier": "TEAM.a", "keychain-administrator": true],
                "b.json": ["executable": b, "application-identifier": "TEAM.b"],
            ])
        daemons.append(daemon)

        // Values that must never reach the log or the journal.
        let secret = "s3cret-\(UUID().uuidString)"
        let account = "acct-\(UUID().uuidString)"
        let service = "svc-\(UUID().uuidString)"
        let label = "label-\(UUID().uuidString)"
        let passcode = "2468-\(UUID().uuidString.prefix(8))"

        #expect(try daemon.client(["set-keychain-password", "-p", passcode], executable: a).status == 0)
        let added = try daemon.client(
            ["add-generic-password", "-a", account, "-s", service, "-l", label, "-w", secret], executable: a)
        #expect(added.status == 0, "\(added.standardError)")
        let found = try daemon.client(["--json", "find-generic-password", "-s", service], executable: a)
        let reference = try #require(
            (try JSONSerialization.jsonObject(with: Data(found.standardOutput.utf8)) as? [String: Any])?[
                "persistentReference"] as? String)
        #expect(
            try daemon.client(["find-generic-password", "-s", service, "-w"], executable: a).standardOutput
                == secret + "\n")
        #expect(try daemon.client(["find-generic-password", "-s", service + "-missing"], executable: a).status == 44)
        let refused = try daemon.client(
            ["find-generic-password", "-s", service, "--access-group", "TEAM.a"], executable: b)
        #expect(refused.status == 30)
        #expect(try daemon.client(["unlock-keychain", "-p", "wrong-\(passcode)"], executable: b).status == 51)

        // Root sees every entry, with the executable the daemon identified and the status it answered.
        let logged = try entries(try daemon.client(["--json", "log"], executable: a))
        let adds = logged.filter { $0.operation == "add" && $0.executable == a }
        #expect(adds.count == 1)
        #expect(adds.first?.status == 0)
        #expect(adds.first?.application == "TEAM.a")
        #expect(adds.first?.class == "genp")
        #expect(adds.first?.accessGroups == ["TEAM.a"])
        #expect(adds.first?.items == [reference])
        let reads = logged.filter { $0.operation == "find" && $0.executable == a && $0.items == [reference] }
        #expect(reads.count == 2, "the --json find and the -w read")
        #expect(logged.contains { $0.operation == "find" && $0.executable == a && $0.status == -25300 })
        #expect(
            logged.contains {
                $0.operation == "find" && $0.executable == b && $0.status == -34018 && $0.accessGroups == ["TEAM.a"]
            })
        #expect(logged.contains { $0.operation == "unlock" && $0.executable == b && $0.status == -25293 })
        #expect(logged.contains { $0.operation == "setPasscode" && $0.executable == a && $0.status == 0 })
        #expect(logged.allSatisfy { $0.uid == 0 })

        // --item narrows to one item's entries.
        let forItem = try entries(try daemon.client(["--json", "log", "--item", reference], executable: a))
        #expect(forItem.count == 3)
        #expect(forItem.allSatisfy { $0.items == [reference] })
        let future = try entries(
            try daemon.client(["--json", "log", "--since", "2999-01-01T00:00:00Z"], executable: a))
        #expect(future.isEmpty)

        // Another user sees only the entries of their own processes.
        func asNobody(_ arguments: [String]) throws -> ProcessOutput {
            try runProcess(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", viewer] + arguments,
                environment: ["CLAVIS_SOCKET": daemon.socket, "HOME": "/nonexistent"])
        }
        #expect(try asNobody(["status"]).status == 0)
        let theirs = try entries(try asNobody(["--json", "log"]))
        #expect(theirs.map(\.operation) == ["status"])
        #expect(theirs.allSatisfy { $0.uid == 65534 && $0.executable == viewer })

        // No value and no secret in the log file, nor in what reached the journal.
        let file = try String(contentsOfFile: daemon.state + "/access.log", encoding: .utf8)
        let lines = file.split(separator: "\n").count
        #expect(lines >= logged.count)
        let journalText = try journal.text(from: daemon.pid, entries: lines)
        #expect(journalText.components(separatedBy: "CLAVIS_OPERATION=").count - 1 >= lines)
        for value in [secret, account, service, label, passcode] {
            #expect(!file.contains(value))
            #expect(!journalText.contains(value))
        }
        #expect(journalText.contains("CLAVIS_OPERATION=add"))
        #expect(journalText.contains("CLAVIS_EXECUTABLE=" + a))
    }

    @Test func aStoppedDaemonRecordsEveryAnswerItGaveInTheJournalAndExitsCleanly() throws {
        let journal = try JournalListener()
        self.journal = journal
        let daemon = try TestDaemon(mode: "user")
        daemons.append(daemon)
        #expect(try daemon.client(["status"]).status == 0)
        // Stopped at once after its answer: the journal's copy still waits for its batch (100 ms), and must be sent
        // before the daemon exits.
        daemon.terminate()
        #expect(daemon.exitedCleanly)
        #expect(daemon.waitForLog("stopped by SIGTERM").contains("stopped by SIGTERM"))
        let journalText = try journal.text(from: daemon.pid, entries: 1)
        #expect(journalText.contains("CLAVIS_OPERATION=status"))
        let file = try String(contentsOfFile: daemon.state + "/access.log", encoding: .utf8)
        #expect(file.contains("\"operation\":\"status\""))
    }

    /// An entry for the log's own tests, its operation `operation`.
    private func entry(_ operation: String) -> AccessLogEntry {
        AccessLogEntry(
            time: Date(), uid: 1000, pid: getpid(), executable: "/usr/bin/app", application: "app",
            operation: operation, status: 0, outcome: "done")
    }

    @Test func aFlushSendsTheJournalWhatWaitsForItsBatch() throws {
        let journal = try JournalListener()
        self.journal = journal
        let folder = try makeTemporaryFolder("journal-flush")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A batch that would wait an hour: the entry can reach the journal only through the flush.
        let log = AccessLog(folder: folder + "/log", journalBatchDelay: .seconds(3600))
        // Unique: a real journal keeps the entries of earlier runs, one of which may have had this process's id.
        let operation = "waiting-\(UUID().uuidString)"
        log.record(entry(operation))
        log.flush()
        let marker = "CLAVIS_OPERATION=" + operation
        #expect(try journal.text(from: getpid(), containing: marker).contains(marker))
    }

    /// Needs a stand-in journal, which it stalls: a journal that runs cannot be stalled from here.
    static let noJournalRuns = !JournalCopy.isAvailable

    @Test(.enabled(if: noJournalRuns, "stalls a stand-in journal"))
    func entriesPastTheBacklogAreCountedAndToldOnceTheJournalTakesEntriesAgain() throws {
        let journal = try JournalListener()
        self.journal = journal
        try #require(journal.playsTheSocket)
        let folder = try makeTemporaryFolder("journal-backlog")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = AccessLog(folder: folder + "/log")
        // Daemons of other suites may send to this socket too: this run's operations carry a prefix of their own.
        let prefix = "run-\(UUID().uuidString)-"
        // The journal stalls: its socket's queue fills, the copy's sends block, and its backlog fills behind them.
        // At most the queue, a batch being sent and the backlog escape being dropped, so more than those are sent.
        let queueLength =
            (try? String(contentsOfFile: "/proc/sys/net/unix/max_dgram_qlen", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 512
        let stalled = 3 * JournalCopy.backlog + queueLength
        journal.pause()
        // A copy that blocked its caller (a regression) would hang here: the journal resumes in any case.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { journal.resume() }
        for index in 0..<stalled { log.record(entry(prefix + "stalled-\(index)")) }
        journal.resume()
        log.flush(waitingForTheJournalAtMost: .seconds(60))
        // The entry after them says how many of the stalled ones never reached the journal.
        log.record(entry(prefix + "after"))
        log.flush(waitingForTheJournalAtMost: .seconds(60))
        let text = try journal.text(from: getpid(), containing: "CLAVIS_OPERATION=" + prefix + "after")
        // Each datagram the stand-in received ends with a blank line; only this run's count.
        let ours = text.components(separatedBy: "\n\n").filter { $0.contains("CLAVIS_OPERATION=" + prefix) }
        let received = ours.filter { $0.contains("CLAVIS_OPERATION=" + prefix + "stalled-") }.count
        let told = ours.compactMap { datagram -> Int? in
            guard let range = datagram.range(of: " earlier entries were not sent to the journal") else { return nil }
            return Int(datagram[..<range.lowerBound].split(separator: " ").last ?? "")
        }
        #expect(ours.contains { $0.contains("CLAVIS_OPERATION=" + prefix + "after") })
        #expect(received < stalled, "the stall dropped some")
        #expect(received + told.reduce(0, +) == stalled, "every stalled entry was sent or counted")
        // Every entry, sent or not, is in the file.
        let file = try String(contentsOfFile: folder + "/log/access.log", encoding: .utf8)
        #expect(file.split(separator: "\n").count == stalled + 1)
    }

    /// A socket file nobody listens on, left where the journal's would be by a journal (or a run that played one)
    /// that ended, is no journal: clavisd does not take it for one, and a stand-in takes its place.
    @Test(.enabled(if: noJournalRuns, "leaves a socket file where the journal's would be"))
    func aSocketFileNobodyListensOnIsNoJournal() throws {
        let folders = ["/run/systemd", "/run/systemd/journal"].filter { !FileManager.default.fileExists(atPath: $0) }
        for folder in folders {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        }
        defer { for folder in folders.reversed() { rmdir(folder) } }
        unlink(JournalListener.socketPath)  // one a crashed run left (no journal runs: this test is enabled)
        let left = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(left >= 0)
        var address = JournalListener.address
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(left, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(left)  // the file stays; nothing listens on it
        try #require(bound == 0)
        defer { unlink(JournalListener.socketPath) }
        chmod(JournalListener.socketPath, 0o666)  // as a journal's: a daemon of another user finds it refused too
        #expect(!JournalCopy.isAvailable)
        let journal = try JournalListener()
        defer { journal.stop() }
        #expect(journal.playsTheSocket)
        #expect(JournalCopy.isAvailable)
    }

    @Test func theLogRotatesAtItsSizeAndKeepsTwoFiles() throws {
        let daemon = try TestDaemon(mode: "user", options: ["--access-log-size", "4"])
        daemons.append(daemon)
        for _ in 0..<60 { #expect(try daemon.client(["status"]).status == 0) }
        // What is still kept is still shown, the newest last; once the log has answered, its files hold every
        // entry (an entry is written just after its answer; a question to the log, before its own).
        let shown = try daemon.client(["log"])
        #expect(shown.status == 0)
        #expect(shown.standardOutput.split(separator: "\n").last?.contains(" status ") == true)
        let current = try FileManager.default.attributesOfItem(atPath: daemon.state + "/access.log")
        let previous = try FileManager.default.attributesOfItem(atPath: daemon.state + "/access.log.1")
        #expect((current[.size] as? Int ?? .max) <= 4096)
        #expect((previous[.size] as? Int ?? .max) <= 4096)
        let files = try FileManager.default.contentsOfDirectory(atPath: daemon.state).filter {
            $0.hasPrefix("access.log")
        }
        #expect(Set(files) == ["access.log", "access.log.1"])

        // A file already past the size when the daemon starts (a smaller --access-log-size than before) is rotated
        // before the first entry, not written on.
        daemon.terminate()
        try Data(repeating: UInt8(ascii: "x"), count: 10_000).write(
            to: URL(fileURLWithPath: daemon.state + "/access.log"))
        let restarted = try TestDaemon(mode: "user", reusing: daemon.folder, options: ["--access-log-size", "4"])
        daemons.append(restarted)
        #expect(try restarted.client(["status"]).status == 0)
        #expect(try restarted.client(["log"]).status == 0)
        let rotated = try FileManager.default.attributesOfItem(atPath: daemon.state + "/access.log.1")
        let fresh = try FileManager.default.attributesOfItem(atPath: daemon.state + "/access.log")
        #expect(rotated[.size] as? Int == 10_000)
        #expect((fresh[.size] as? Int ?? .max) < 4096)
    }

    @Test func anEmbeddedKeychainKeepsNoLogAndSaysSo() throws {
        let home = try makeTemporaryFolder("embedded-log")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let output = try runProcess(ClavisBinary.path, ["log"], environment: ClavisBinary.environment(home: home, [:]))
        #expect(output.status != 0)
        #expect(output.standardError.contains("clavisd"))
    }
}
