/// How many writes a keychain committed since it was opened (by this process, or by the daemon serving it), and in
/// how many disk flushes: writes that arrive together share one (group commit), so flushes ≤ writes.
public struct WriteStatistics: Sendable, Hashable {
    /// Item writes committed: adds, updates and deletes, each counted once whatever it changed.
    public var writes: Int
    /// Transactions committed for them, each one disk flush.
    public var flushes: Int

    /// Statistics of `writes` writes in `flushes` flushes.
    public init(writes: Int = 0, flushes: Int = 0) {
        self.writes = writes
        self.flushes = flushes
    }
}
