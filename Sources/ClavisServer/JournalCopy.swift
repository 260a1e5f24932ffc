internal import CJournal
import ClavisCore
import Dispatch
import Synchronization

/// Sends access-log entries to the systemd journal (sd-journal) on a queue of their own: a slow or stuck journal
/// never holds up a keychain request. At most `backlog` entries wait; past that they are dropped from the journal
/// (never from the log file), and how many is said in the next entry sent.
final class JournalCopy: Sendable {
    /// True when a journal runs on this machine.
    static var isAvailable: Bool { clavis_journal_available() != 0 }

    /// The most entries waiting to be sent.
    static let backlog = 1024
    /// The journal's identifier for clavisd's access entries, so `journalctl MESSAGE_ID=…` finds them all.
    static let messageID = "6f1a2d8e4b7c4f0e9a3d5c2b1e8f7a60"

    private let queue = DispatchQueue(label: "clavisd.journal")
    private let waiting = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    /// Queues `entry` for the journal.
    func send(_ entry: AccessLogEntry) {
        guard waiting.add(1, ordering: .relaxed).newValue <= Self.backlog else {
            waiting.subtract(1, ordering: .relaxed)
            dropped.add(1, ordering: .relaxed)
            return
        }
        queue.async {
            defer { self.waiting.subtract(1, ordering: .relaxed) }
            let lost = self.dropped.exchange(0, ordering: .relaxed)
            Self.write(entry, dropped: lost)
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
