/// The settings every connection to a keychain database runs when it opens it, as SQL statements.
package enum KeychainDatabaseSettings {
    /// How it writes: each commit synced before it is acknowledged (`synchronous = FULL`), deleted items' bytes
    /// overwritten (`secure_delete`), and a short write-ahead log: each process that opens the keychain after another
    /// exited replays the log, so it is checkpointed often and truncated back to at most 1 MiB.
    package static let writes =
        "PRAGMA synchronous = FULL; PRAGMA secure_delete = ON; PRAGMA wal_autocheckpoint = 100; "
        + "PRAGMA journal_size_limit = \(logSizeLimit);"

    /// The size, in bytes, SQLite truncates the log back to whenever it starts it over.
    static let logSizeLimit = 1_048_576

    /// How the writing connection of a keychain that serves many clients (a daemon's: `Keychain` with readers)
    /// writes instead: a log checkpointed every 1,000 pages and truncated back to 4 MiB, so that a commit pays for a
    /// checkpoint a tenth as often, and each checkpoint copies a page many commits rewrote once. Measured through
    /// clavisd at 100,000 items: 6 to 16% more adds a second, from one client and from 8. The log is still folded
    /// back when the daemon closes the keychain; a daemon killed leaves at most that much for the next one to replay.
    static let serving = "PRAGMA wal_autocheckpoint = 1000; PRAGMA journal_size_limit = 4194304;"

    /// How it reads: the file mapped into memory (pages read without a system call or a copy), up to 1 GiB (about
    /// three million items: a million take 339 MB, and with a 256 MiB map the pages past it were each read with a
    /// system call and copied), and a page cache that holds the index pages of a large keychain. Without
    /// `mapsDatabase` pages are copied into the cache instead, so the process's resident memory stays within the
    /// cache (what a long-running daemon wants: mapped pages count as its memory), here 8 MiB: the index pages of
    /// 100,000 items take about 5 MiB, and a random item's table page, read once, gains nothing from being kept (the
    /// kernel keeps the file's pages anyway). A daemon then stays under 32 MiB however long it serves.
    /// `cacheKiB` sets another page cache (a daemon's readers beside its main connection: `ReaderPool`).
    package static func reads(mapsDatabase: Bool, cacheKiB: Int? = nil) -> String {
        let mapped = mapsDatabase ? 1_073_741_824 : 0
        let cacheKiB = cacheKiB ?? (mapsDatabase ? 16384 : 8192)
        return "PRAGMA mmap_size = \(mapped); PRAGMA cache_size = -\(cacheKiB);"
    }
}
