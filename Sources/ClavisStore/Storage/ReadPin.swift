internal import ClavisSQLite
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A read transaction kept open for a moment, on a second connection to the keychain, so that the reads of a burst
/// find their lock on the log already held and make no system call.
///
/// Each read of a keychain in WAL mode is a transaction of its own, which takes a read lock on the shared-memory
/// index and gives it back: two `fcntl` calls, about 1.5 µs on the machine the benchmarks run on, where a whole
/// `SecItemCopyMatching` by primary key takes 15 to 17. SQLite counts those locks per process, so while another
/// connection of the process holds the same lock, a read takes and gives back nothing. The kept transaction has read
/// the first row of `schema_version` and holds nothing else.
///
/// What it costs others, and how that is bounded: while a process reads the log, no process can start the log over
/// from its beginning, and a reader of the database alone (read slot 0, taken once the log is wholly copied back)
/// holds back every checkpoint. Hence a pin
/// - lasts about `idleMilliseconds`: the item read that takes it schedules the check that gives it back
///   (`Keychain`), and an item read after that takes another (reads of a setting neither count nor take one);
/// - is given back, and none taken until the check, after any read that saw another connection's change: while
///   another process writes, its checkpoints go on as without a pin;
/// - is given back before each of this process's writes, whose checkpoints then start the log over as before;
/// - is not taken while the log is larger than SQLite truncates it to (`KeychainDatabaseSettings.logSizeLimit`);
/// - is given up at the first call that reaches the database in a process forked after it was made, whose kernel
///   holds none of its parent's locks. A mitigation only: as SQLite's connections, a keychain opened before `fork`
///   must not be used in the child (the check may even have held the keychain's lock at the fork).
///
/// Best effort: a pin that cannot be taken leaves reads as they were, and at most one attempt is made per check and
/// one after each write. Not thread-safe: the engine's lock serialises it.
final class ReadPin {
    /// How long a pin is kept by default.
    static let defaultIdleMilliseconds = 200

    /// How long a pin is kept after the read that takes it.
    let idleMilliseconds: Int
    private let path: String
    /// The device and inode of the database the keychain's own connection opened: the pin's must be the same file.
    private let databaseFile: (device: UInt64, inode: UInt64)
    private let logSize: () -> Int?
    /// `ReadPin.forks` when this pin was made.
    private let forkGeneration: Int
    private var connection: Connection?
    /// Set when the pin must not be used again: its connection could not be opened, opened another file, or this
    /// process was forked since.
    private var isDisabled = false
    private var isHeld = false
    /// The data version the keychain's connection saw on the read after the pin was taken; `nil` before that read.
    private var pinnedVersion: UInt32?
    /// Whether this process has read items once already: the pin's connection is opened at its second item read, so
    /// that a command that reads one item and exits opens no second connection.
    private var hasRead = false
    /// Whether the check that gives the pin back is scheduled: until it runs, no other check is, and no other attempt
    /// to take the pin is made but the first after a write (`mayRetake`).
    private var isCheckScheduled = false
    /// Whether a read may take the pin again before the scheduled check: once, after a write gave it back.
    private var mayRetake = false

    /// A pin on the database at `path`, the file `databaseFile` names, whose log's size `logSize` reads.
    init(
        path: String, databaseFile: (device: UInt64, inode: UInt64), idleMilliseconds: Int,
        logSize: @escaping () -> Int?
    ) {
        self.path = path
        self.databaseFile = databaseFile
        self.idleMilliseconds = idleMilliseconds
        self.logSize = logSize
        forkGeneration = Self.forks.load(ordering: .relaxed)
        Self.countsForks
    }

    /// Before each call that reaches the database: in a process forked since the pin was made, gives it up for good.
    /// SQLite's count there says the lock is held, where the kernel holds none for the child.
    func giveUpIfForked() {
        guard !isDisabled, Self.forks.load(ordering: .relaxed) != forkGeneration else { return }
        release()
        isDisabled = true
    }

    /// Before a read of items: takes the pin when none is held and no check is scheduled (or a write gave it back
    /// since). True when the caller must schedule the check (`giveBack`) `idleMilliseconds` from now.
    func beforeRead() -> Bool {
        guard !isDisabled else { return false }
        guard hasRead else {
            hasRead = true
            return false
        }
        guard !isHeld else { return false }
        let schedulesCheck = !isCheckScheduled
        guard schedulesCheck || mayRetake else { return false }
        mayRetake = false
        isCheckScheduled = true
        hold()
        return schedulesCheck
    }

    /// Before one of this process's writes: gives the pin back, so that the write's checkpoint may start the log over.
    func beforeWrite() {
        release()
        mayRetake = isCheckScheduled
    }

    /// After a read that saw the database at `dataVersion` (asked for only while a pin is held, so that a read without
    /// one pays nothing for it): gives the pin back when another connection changed the database since it was taken,
    /// and takes none until the check. While another process writes, a pin would save this one nothing (each read of
    /// a newer snapshot takes its own lock) and hold back the writer's checkpoints. (A change between taking the pin
    /// and the read after it goes unseen here: the check gives that pin back.)
    func afterRead(dataVersion: @autoclosure () -> UInt32) {
        guard isHeld else { return }
        let dataVersion = dataVersion()
        guard let pinnedVersion else {
            pinnedVersion = dataVersion
            return
        }
        guard pinnedVersion != dataVersion else { return }
        release()
        mayRetake = false
    }

    /// The scheduled check: gives the pin back; the next item read takes another.
    func giveBack() {
        isCheckScheduled = false
        mayRetake = false
        release()
    }

    private func release() {
        pinnedVersion = nil
        guard isHeld else { return }
        isHeld = false
        do {
            try connection?.execute("COMMIT")
        } catch {
            // A transaction left open would hold the log for good: close the connection instead.
            connection = nil
        }
    }

    /// Takes the pin at the newest snapshot, unless the log is too large or the connection cannot be had.
    ///
    /// SQLite truncates the log back to `journal_size_limit` at the first commit after starting it over, so a larger
    /// one has not been started over since it grew (a reader held it, or one large transaction wrote it), and a pin
    /// would keep it so.
    private func hold() {
        if let size = logSize(), size > KeychainDatabaseSettings.logSizeLimit { return }
        guard let connection = connection ?? open() else { return }
        self.connection = connection
        do {
            try connection.execute("BEGIN DEFERRED")
            try connection.execute("SELECT 1 FROM schema_version LIMIT 1")
            isHeld = true
        } catch {
            try? connection.execute("ROLLBACK")
        }
    }

    /// The pin's own connection, or `nil` (and the pin disabled) when it cannot be opened or is not the keychain's
    /// file: read-only in effect (`query_only`), and never waiting on a lock, so that taking the pin never holds up
    /// the read it comes before.
    private func open() -> Connection? {
        guard
            let connection = try? Connection.queryOnly(
                path: path, sameFileAs: databaseFile, busyTimeoutMilliseconds: 0)
        else {
            isDisabled = true
            return nil
        }
        return connection
    }

    /// How many times this process was forked since it made its first pin (`countsForks`).
    private static let forks = Atomic<Int>(0)

    /// Registers the `pthread_atfork` handler that counts forks, in the child, once `forks` exists.
    private static let countsForks: Void = {
        pthread_atfork(nil, nil) { ReadPin.forks.add(1, ordering: .relaxed) }
    }()
}
