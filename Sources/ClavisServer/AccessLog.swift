public import ClavisCore
import ClavisSystem
public import Dispatch
public import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// clavisd's access log: one JSON line per operation served (`AccessLogEntry`), in `access.log` in the daemon's state
/// folder, which only the daemon's user may read, and a copy of each entry in the systemd journal when one runs.
///
/// The file is the record `clavis log` answers from, whatever the journal keeps and whoever may read it. It cannot
/// fill a disk: once `access.log` would pass `limit` bytes it becomes `access.log.1` (replacing the one before) and
/// a new file starts, so the log holds at most twice `limit`. Entries are appended with one `write` each under a lock,
/// so lines never interleave; a line torn by a crash is skipped when read.
public final class AccessLog: Sendable {
    /// The current file.
    public let path: String
    /// The bytes one file may hold before it is rotated.
    public let limit: Int
    private let file = Mutex<OpenFile>(OpenFile())
    private let journal: JournalCopy?
    /// The entries announced (`announce`) and not yet written: their answers may have gone out already.
    private let unwritten = Mutex<Unwritten>(Unwritten())

    private struct Unwritten {
        var nextTicket: UInt64 = 0
        var entries: [UInt64: AccessLogEntry] = [:]
    }

    /// An entry handed to the log before the answer it records is sent, to be written after it (`record(_:)`).
    public struct Announcement: Sendable {
        fileprivate let ticket: UInt64
    }

    private struct OpenFile: ~Copyable {
        /// The current file, open for appending; `nil` before the first entry, or when it could not be opened.
        var opened: FileDescriptor?
        var size = 0
        /// True once a failed write was reported, so a full disk is said once rather than on every request.
        var reportedFailure = false
    }

    /// The default size of one file: 8 MiB, some 30,000 entries.
    public static let defaultLimit = 8 << 20

    /// A log in `folder` (created 0700 when missing), each file at most `limit` bytes, copied to the journal when
    /// `journal` is true and a journal runs, in batches that wait `journalBatchDelay` for their entries (100 ms
    /// unless given).
    public init(
        folder: String, limit: Int = AccessLog.defaultLimit, journal: Bool = true,
        journalBatchDelay: DispatchTimeInterval? = nil
    ) {
        mkdir(folder, 0o700)
        path = folder + "/access.log"
        self.limit = max(limit, 4096)
        self.journal =
            journal && JournalCopy.isAvailable
            ? JournalCopy(batchDelay: journalBatchDelay ?? JournalCopy.batchDelay) : nil
    }

    /// Hands the log `entry`, whose answer is about to go out, to be written by `record(_:)` once it has: the
    /// entry leaves the answer's way, and a question to the log (`lines`) writes every entry announced and not yet
    /// written before it reads, so whatever a caller asks after its answer finds the entry. Nothing waits on a
    /// caller: a peer that never reads its answer leaves its entry to the next question.
    public func announce(_ entry: AccessLogEntry) -> Announcement {
        unwritten.withLock { unwritten in
            let ticket = unwritten.nextTicket
            unwritten.nextTicket &+= 1
            unwritten.entries[ticket] = entry
            return Announcement(ticket: ticket)
        }
    }

    /// Has the entry `announcement` handed over written, unless a question to the log wrote it already: by this
    /// thread, together with every other entry announced so far, when no other thread is writing; else by the thread
    /// that is, which looks again for entries once it lets the file go. Under many clients at once, one thread then
    /// writes many entries in one go while the others go on, rather than each waiting its turn at the file.
    public func record(_ announcement: Announcement) {
        _ = announcement
        writeAnnouncedUnlessBusy()
    }

    /// Writes every announced entry unless another thread holds the file, and looks again after each write: whoever
    /// lets the file go calls this, so an entry announced while the file was held is written by the holder.
    ///
    /// Entries are taken out of the announced ones under the file's lock: a question to the log, which holds that lock
    /// while it writes the announced entries and reads, finds each entry either announced or written.
    private func writeAnnouncedUnlessBusy() {
        while unwritten.withLock({ !$0.entries.isEmpty }) {
            guard file.withLockIfAvailable({ file in writeAnnounced(to: &file) }) != nil else { return }
        }
    }

    /// Writes every entry announced and not yet written, then sends the journal the entries waiting for it (giving
    /// a stalled journal `wait`, `JournalCopy.flushWait` unless given): as the daemon stops, so that the answers it
    /// gave before are recorded in both. A request answered while this runs may still miss its journal copy, or its
    /// entry if the process ends between its answer and its `record`, as with a kill.
    public func flush(waitingForTheJournalAtMost wait: DispatchTimeInterval? = nil) {
        file.withLock { file in writeAnnounced(to: &file) }
        writeAnnouncedUnlessBusy()
        journal?.flush(waitingAtMost: wait ?? JournalCopy.flushWait)
    }

    /// Appends `entry` (and hands it to the journal). A failed write is reported once on standard error; it never
    /// fails the request it records.
    public func record(_ entry: AccessLogEntry) {
        // After the entries announced before it, so that the file keeps the order the answers went out in.
        file.withLock { file in
            writeAnnounced(to: &file)
            append([entry], to: &file)
        }
        writeAnnouncedUnlessBusy()
    }

    /// Appends `entries` to the open file, each line whole in one file (rotating it first when the next line would
    /// pass `limit`), and hands them to the journal.
    private func append(_ entries: [AccessLogEntry], to file: inout OpenFile) {
        var lines: [UInt8] = []
        for entry in entries {
            journal?.send(entry)
            let line = entry.jsonLine + [UInt8(ascii: "\n")]
            if file.opened == nil { openCurrent(&file) }
            // Also a file found too large when first opened (a smaller --access-log-size than before).
            if file.size + lines.count > 0 && file.size + lines.count + line.count > limit {
                writeOut(&lines, to: &file)
                file.opened = nil
                rename(path, path + ".1")
                openCurrent(&file)
            }
            lines += line
        }
        writeOut(&lines, to: &file)
    }

    /// Writes `lines` to the open file in one `write` and empties them. A failed write is reported once.
    private func writeOut(_ lines: inout [UInt8], to file: inout OpenFile) {
        guard !lines.isEmpty else { return }
        let descriptor = file.opened?.rawValue ?? -1
        let written = lines.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written == lines.count {
            file.size += lines.count
        } else if !file.reportedFailure {
            file.reportedFailure = true
            DaemonLog.report("cannot write the access log \(path): \(String(cString: strerror(errno)))")
        }
        lines.removeAll(keepingCapacity: true)
    }

    /// Appends the entries announced and not yet written, in the order they were announced: one `write` for all of
    /// them unless the file is rotated among them.
    private func writeAnnounced(to file: inout OpenFile) {
        let announced = unwritten.withLock { unwritten in
            defer { unwritten.entries.removeAll() }
            return unwritten.entries.sorted { $0.key < $1.key }.map(\.value)
        }
        append(announced, to: &file)
    }

    /// Opens (creating it when missing) the current file for appending, and notes its size.
    private func openCurrent(_ file: inout OpenFile) {
        file.opened = try? FileDescriptor(opening: path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, mode: 0o600)
        let descriptor = file.opened?.rawValue ?? -1
        var info = stat()
        file.size = descriptor >= 0 && fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The entries `query` asks for that user `viewer` may see (its own; root sees all), oldest first, as the JSON
    /// lines the log holds.
    public func lines(matching query: AccessLogQuery, viewer: UInt32) -> Data {
        // Under the lock, so that no rotation moves a file between the two reads; and every answer that went out
        // before this question has its entry: those not written yet are written first.
        let contents = file.withLock { file in
            writeAnnounced(to: &file)
            return Self.contents(of: path + ".1") + Self.contents(of: path)
        }
        writeAnnouncedUnlessBusy()
        var matched: [UInt8] = []
        for line in contents.split(separator: UInt8(ascii: "\n")) {
            guard let entry = AccessLogEntry(jsonLine: line), viewer == 0 || entry.uid == viewer,
                query.admits(entry)
            else { continue }
            matched += line
            matched.append(UInt8(ascii: "\n"))
        }
        return Data(matched)
    }

    /// The bytes of the regular file at `path`; none when it is missing or not a regular file.
    private static func contents(of path: String) -> [UInt8] {
        guard let file = try? FileDescriptor(opening: path, O_RDONLY | O_NOFOLLOW) else { return [] }
        var info = stat()
        guard fstat(file.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return [] }
        // A file that cannot be read shows nothing, rather than failing the whole listing.
        return (try? FileContents.read(file.rawValue, limit: Int(info.st_size) + 65536)) ?? []
    }
}
