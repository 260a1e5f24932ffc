public import ClavisCore
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
    /// The entries announced (`announce`) and not yet recorded: their answers may have gone out already.
    private let unrecorded = Mutex<Unrecorded>(Unrecorded())

    private struct Unrecorded {
        var nextTicket: UInt64 = 0
        var tickets: Set<UInt64> = []
    }

    /// A promise that an entry will be recorded, taken before the answer it records is sent, so that the entry
    /// can be written after the caller has its answer: `lines` waits for every entry announced before it is asked.
    /// Recorded with `record(_:announced:)`.
    public struct Announcement: Sendable {
        fileprivate let ticket: UInt64
    }

    private struct OpenFile: ~Copyable {
        var descriptor: Int32 = -1
        var size = 0
        /// True once a failed write was reported, so a full disk is said once rather than on every request.
        var reportedFailure = false
    }

    /// The default size of one file: 8 MiB, some 30,000 entries.
    public static let defaultLimit = 8 << 20

    /// A log in `folder` (created 0700 when missing), each file at most `limit` bytes, copied to the journal when
    /// `journal` is true and a journal runs.
    public init(folder: String, limit: Int = AccessLog.defaultLimit, journal: Bool = true) {
        mkdir(folder, 0o700)
        path = folder + "/access.log"
        self.limit = max(limit, 4096)
        self.journal = journal && JournalCopy.isAvailable ? JournalCopy() : nil
    }

    /// Announces an entry whose answer is about to go out; `record(_:announced:)` must follow.
    public func announce() -> Announcement {
        unrecorded.withLock { unrecorded in
            let ticket = unrecorded.nextTicket
            unrecorded.nextTicket &+= 1
            unrecorded.tickets.insert(ticket)
            return Announcement(ticket: ticket)
        }
    }

    /// Records the entry `announcement` promised.
    public func record(_ entry: AccessLogEntry, announced announcement: Announcement) {
        record(entry)
        _ = unrecorded.withLock { $0.tickets.remove(announcement.ticket) }
    }

    /// Appends `entry` (and hands it to the journal). A failed write is reported once on standard error; it never
    /// fails the request it records.
    public func record(_ entry: AccessLogEntry) {
        journal?.send(entry)
        let line = entry.jsonLine + [UInt8(ascii: "\n")]
        file.withLock { file in
            if file.descriptor < 0 { openCurrent(&file) }
            // Also a file found too large when first opened (a smaller --access-log-size than before).
            if file.size > 0 && file.size + line.count > limit {
                close(file.descriptor)
                rename(path, path + ".1")
                openCurrent(&file)
            }
            let written = line.withUnsafeBytes { write(file.descriptor, $0.baseAddress, $0.count) }
            if written == line.count {
                file.size += line.count
            } else if !file.reportedFailure {
                file.reportedFailure = true
                DaemonLog.report("cannot write the access log \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Opens (creating it when missing) the current file for appending, and notes its size.
    private func openCurrent(_ file: inout OpenFile) {
        file.descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        var info = stat()
        file.size = file.descriptor >= 0 && fstat(file.descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The entries `query` asks for that user `viewer` may see (its own; root sees all), oldest first, as the JSON
    /// lines the log holds.
    public func lines(matching query: AccessLogQuery, viewer: UInt32) -> Data {
        // Every answer that went out before this question has its entry: those still being written are waited for
        // (a few microseconds each); entries announced later are not.
        let awaited = unrecorded.withLock { $0.tickets }
        while !awaited.isEmpty && unrecorded.withLock({ !$0.tickets.isDisjoint(with: awaited) }) { sched_yield() }
        // Under the lock, so that no rotation moves a file between the two reads.
        let contents = file.withLock { _ in Self.contents(of: path + ".1") + Self.contents(of: path) }
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
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return [] }
        // A file that cannot be read shows nothing, rather than failing the whole listing.
        return (try? FileContents.read(descriptor, limit: Int(info.st_size) + 65536)) ?? []
    }
}
