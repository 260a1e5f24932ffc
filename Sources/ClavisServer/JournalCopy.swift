internal import CJournal
import ClavisCore
import Dispatch
import Synchronization

/// Sends access-log entries to the systemd journal (sd-journal) in batches, on a queue of their own: a slow or stuck
/// journal never holds up a keychain request, and most requests wake no other thread. The first entry of a batch
/// schedules it to be sent `batchDelay` later; the entries that follow join it, and a batch that reaches `batchSize`
/// is sent at once. Handing each entry to the queue at once woke a thread on every request: through clavisd, a read
/// took 88-93 µs at p50 with a journal against 51-68 without in the same runs, a status 40-52 against 21-25. At most
/// `backlog` entries wait while the journal takes earlier ones; past that they are dropped from the journal (never
/// from the log file), and how many is said in the next entry sent. A daemon told to stop sends what waits
/// (`flush`); entries still waiting when it is killed reach only the file.
final class JournalCopy: Sendable {
    /// True when a journal runs on this machine (a socket file left behind by one that ended does not count).
    static var isAvailable: Bool { clavis_journal_available() != 0 }

    /// The most entries waiting to be sent.
    static let backlog = 1024
    /// How long the first entry of a batch waits for the others, unless told otherwise.
    static let batchDelay = DispatchTimeInterval.milliseconds(100)
    /// How many entries a batch holds before it is sent without waiting for `batchDelay`: a daemon answering many
    /// requests a second wakes the queue once per this many, and never fills `backlog` while the journal keeps up.
    static let batchSize = 256
    /// The journal's identifier for clavisd's access entries, so `journalctl MESSAGE_ID=…` finds them all.
    static let messageID = "6f1a2d8e4b7c4f0e9a3d5c2b1e8f7a60"

    /// The entries waiting, and the counts of those dropped.
    private struct Batch {
        var entries: [AccessLogEntry] = []
        /// Dropped since this batch began: each after every entry in it, so told with the next batch's first entry.
        var dropped = 0
        /// Dropped before this batch began, told with its first entry.
        var droppedBefore = 0
    }

    private let queue = DispatchQueue(label: "clavisd.journal")
    private let batch = Mutex(Batch())
    /// How long the first entry of a batch waits for the others here.
    private let delay: DispatchTimeInterval

    /// A copy whose batches wait `delay` for their entries.
    init(batchDelay delay: DispatchTimeInterval) {
        self.delay = delay
    }

    /// Queues `entry` for the journal.
    func send(_ entry: AccessLogEntry) {
        let waiting = batch.withLock { batch in
            guard batch.entries.count < Self.backlog else {
                batch.dropped += 1
                return 0
            }
            batch.entries.append(entry)
            return batch.entries.count
        }
        // A batch sent early leaves its timer behind: that one finds a later batch, or none.
        if waiting == 1 { queue.asyncAfter(deadline: .now() + delay) { self.sendBatch() } }
        if waiting == Self.batchSize { queue.async { self.sendBatch() } }
    }

    /// Sends the entries waiting now, after any batch being sent, and returns once the journal has them or after
    /// `wait`, whichever comes first: as the daemon stops, which a stalled journal must not hold up.
    func flush(waitingAtMost wait: DispatchTimeInterval) {
        let sent = DispatchSemaphore(value: 0)
        queue.async {
            self.sendBatch()
            sent.signal()
        }
        _ = sent.wait(timeout: .now() + wait)
    }

    /// How long a stopping daemon waits for the journal to take what waits for it.
    static let flushWait = DispatchTimeInterval.seconds(2)

    /// Sends the entries waiting, if any, the first saying how many were dropped before them.
    private func sendBatch() {
        let taken = batch.withLock { batch -> (entries: [AccessLogEntry], droppedBefore: Int)? in
            guard !batch.entries.isEmpty else { return nil }
            defer { batch = Batch(droppedBefore: batch.dropped) }
            return (batch.entries, batch.droppedBefore)
        }
        guard let taken else { return }
        for (index, entry) in taken.entries.enumerated() {
            Self.write(entry, dropped: index == 0 ? taken.droppedBefore : 0)
        }
    }

    /// One journal entry: a readable MESSAGE and the entry's fields (CLAVIS_*), never a value or a secret.
    private static func write(_ entry: AccessLogEntry, dropped: Int) {
        let who = entry.application ?? entry.executable ?? "an unidentified program"
        var message = "\(who) (uid \(entry.uid), pid \(entry.pid)): \(entry.operation)"
        if let itemClass = entry.itemClass { message += " \(itemClass)" }
        message += " -> \(entry.outcome) (\(entry.status))"
        if dropped > 0 { message += "; \(dropped) earlier entries were not sent to the journal" }
        var fields = [
            "MESSAGE=" + message, "MESSAGE_ID=" + messageID, "SYSLOG_IDENTIFIER=clavisd",
            "PRIORITY=" + (entry.status == 0 ? "6" : "5"), "CLAVIS_TIME=" + entry.timeText,
            "CLAVIS_UID=\(entry.uid)", "CLAVIS_PID=\(entry.pid)", "CLAVIS_OPERATION=" + entry.operation,
            "CLAVIS_STATUS=\(entry.status)", "CLAVIS_OUTCOME=" + entry.outcome,
        ]
        if let executable = entry.executable { fields.append("CLAVIS_EXECUTABLE=" + executable) }
        if let application = entry.application { fields.append("CLAVIS_APPLICATION=" + application) }
        if let itemClass = entry.itemClass { fields.append("CLAVIS_CLASS=" + itemClass) }
        if !entry.accessGroups.isEmpty {
            fields.append("CLAVIS_ACCESS_GROUPS=" + entry.accessGroups.joined(separator: " "))
        }
        if !entry.items.isEmpty { fields.append("CLAVIS_ITEMS=" + entry.items.joined(separator: " ")) }
        // The fields side by side in one buffer, each passed by its start and length.
        let lengths = fields.map(\.utf8.count)
        let joined = fields.flatMap(\.utf8)
        joined.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                guard let base = characters.baseAddress else { return }
                var offset = 0
                let starts: [UnsafePointer<CChar>?] = lengths.map { length in
                    defer { offset += length }
                    return base + offset
                }
                _ = clavis_journal_send(starts, lengths, Int32(lengths.count))
            }
        }
    }
}
