import ClavisSQLite

/// A read transaction kept open, between this process's reads, on a second connection to the keychain, so that a
/// read finds its lock on the log already held and makes no system call.
///
/// Each read of a keychain in WAL mode is a transaction of its own, which takes a read lock on the shared-memory
/// index and gives it back: two `fcntl` calls, about 1.5 µs on the machine the benchmarks run on, where a whole
/// `SecItemCopyMatching` by primary key takes 15 to 17. SQLite counts those locks per process, so while another
/// connection of the process holds the same lock, a read takes and gives back nothing. The kept transaction has
/// read one row of `schema_version` and holds nothing else.
///
/// What it costs others, and how that is bounded: a process cannot start the log over from its beginning while any
/// other keeps reading it, so the log grows instead (checkpoints still copy it into the database). Hence the pin is
/// - taken again, at the newest snapshot, after a read that saw the database change;
/// - given back before each of this process's writes (whose checkpoints then start the log over as before);
/// - given back once the process has read nothing for `idleMilliseconds` (`Keychain` schedules the check);
/// - not taken while the log is larger than `logLimit`, so that a log others could not start over stays short.
///
/// Best effort: a pin that cannot be taken (another process is recovering the log, say) leaves reads as they were.
/// Not thread-safe: the engine's lock serialises it.
final class ReadPin {
    /// How long the pin outlives this process's last read.
    static let idleMilliseconds = 200
    /// The largest log the pin is taken over: SQLite truncates the log back to this size (`journal_size_limit`)
    /// whenever it starts it over, so a larger one has been held from starting over.
    static let logLimit = KeychainDatabaseSettings.logSizeLimit

    private let path: String
    private let logSize: () -> Int?
    private var connection: Connection?
    /// Set when the pin's connection could not be opened (no descriptor left, say): reads then go on without a pin
    /// rather than try again on every read.
    private var cannotOpen = false
    /// The data version the keychain's connection saw on the read after the pin was taken; `nil` before that read.
    private var pinnedVersion: UInt32?
    private(set) var isHeld = false
    /// Whether this process has read once already: the pin's connection is opened at its second read, so that a
    /// command that reads once and exits opens no second connection.
    private var hasRead = false
    /// Whether a read ran since the idle check was last scheduled or made.
    private var readSinceIdleCheck = false
    /// Whether an idle check is scheduled: at most one is.
    private var idleCheckScheduled = false

    /// A pin on the database at `path`, whose log's size `logSize` reads.
    init(path: String, logSize: @escaping () -> Int?) {
        self.path = path
        self.logSize = logSize
    }

    /// Before a read: takes the pin when none is held. True when the caller must schedule an idle check
    /// (`releaseIfIdle`) after `idleMilliseconds`.
    func beforeRead() -> Bool {
        guard hasRead else {
            hasRead = true
            return false
        }
        readSinceIdleCheck = true
        if !isHeld { hold() }
        guard isHeld, !idleCheckScheduled else { return false }
        idleCheckScheduled = true
        return true
    }

    /// After a read that saw the database at `dataVersion`: takes the pin again at the newest snapshot when the
    /// database changed since it was taken, since a read of the newer snapshot would otherwise take its own lock.
    /// (A change between taking the pin and the read after it goes unseen here: reads then take their own locks, as
    /// without a pin, until the next change or the idle check.)
    func afterRead(dataVersion: UInt32) {
        guard isHeld else { return }
        guard let pinnedVersion else {
            pinnedVersion = dataVersion
            return
        }
        guard pinnedVersion != dataVersion else { return }
        release()
        hold()
        if isHeld { self.pinnedVersion = dataVersion }
    }

    /// Gives the pin back: before each of this process's writes.
    func release() {
        pinnedVersion = nil
        guard isHeld else { return }
        isHeld = false
        try? connection?.execute("COMMIT")
    }

    /// The idle check: gives the pin back when nothing was read since the last check. True when the caller must
    /// check again after `idleMilliseconds`.
    func releaseIfIdle() -> Bool {
        if readSinceIdleCheck && isHeld {
            readSinceIdleCheck = false
            return true
        }
        readSinceIdleCheck = false
        idleCheckScheduled = false
        release()
        return false
    }

    /// Takes the pin at the newest snapshot, unless the log is too large or the connection cannot be had.
    private func hold() {
        guard !cannotOpen else { return }
        if let size = logSize(), size > Self.logLimit { return }
        if connection == nil {
            do {
                connection = try open()
            } catch {
                cannotOpen = true
                return
            }
        }
        guard let connection else { return }
        do {
            try connection.execute("BEGIN DEFERRED")
            do {
                try connection.execute("SELECT version FROM schema_version")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            isHeld = true
        } catch {
            isHeld = false
        }
    }

    /// The pin's own connection: read-only in effect (`query_only`), and never waiting on a lock, so that taking the
    /// pin never holds up the read it comes before.
    private func open() throws -> Connection {
        let connection = try Connection(
            path: path, mode: .readWrite, busyTimeoutMilliseconds: 0, refusingSymbolicLinks: true)
        try connection.executeScript("PRAGMA query_only = ON;")
        return connection
    }
}
