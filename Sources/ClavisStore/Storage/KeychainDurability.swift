/// How every keychain connection writes: each commit synced before it is acknowledged (`synchronous = FULL`),
/// deleted items' bytes overwritten (`secure_delete`), and a short write-ahead log: each process that opens the
/// keychain after another exited replays the log, so it is checkpointed often and truncated back to at most 1 MiB.
public enum KeychainDurability {
    /// The settings, as the statements a connection runs when it opens a keychain.
    public static let settings =
        "PRAGMA synchronous = FULL; PRAGMA secure_delete = ON; PRAGMA wal_autocheckpoint = 100; "
        + "PRAGMA journal_size_limit = 1048576;"
}
