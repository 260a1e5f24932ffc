internal import ClavisCore
import Dispatch
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Engines beside a keychain's own that serve item reads in parallel, each on its own connection (SQLite's
/// write-ahead log lets each read its own snapshot while another connection writes or flushes): a daemon's reads then
/// use every processor and never wait behind a write.
///
/// Bounds: `count` engines, made when the keychain opens, each with a page cache of `cacheKiB`; a read waits for a
/// free one (at most `count` run at once). The class keys follow the keychain's own engine: `publish` hands each
/// change to every idle reader at once, and a reader busy at that moment takes them as it comes back; a lock waits
/// for those (`waitForReadsInProgress`), so that no reader holds a closed class's key once it returns.
final class ReaderPool: Sendable {
    /// How many readers a daemon's keychain keeps: one per processor, at least two and at most four.
    static var defaultCount: Int { min(4, max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))) }
    /// The page cache of each reader, in KiB: the index pages of 100,000 items take about 5 MiB.
    static let cacheKiB = 6144

    /// The readers not in use, and the class keys last published. The engines in it are used by one thread at a
    /// time: the pool's lock hands each out and takes it back.
    private struct State: @unchecked Sendable {
        var idle: [KeychainEngine]
        var classKeys: [ProtectionClass: SecureBytes]
        var lockState: LockState
        var generation: Int
    }

    private let state: Mutex<State>
    private let free: DispatchSemaphore
    private let count: Int

    /// `count` readers beside `primary`, with its class keys.
    init(beside primary: KeychainEngine, count: Int) throws {
        var readers: [KeychainEngine] = []
        for _ in 0..<count {
            readers.append(try KeychainEngine(readingBeside: primary, cacheKiB: Self.cacheKiB))
        }
        state = Mutex(
            State(
                idle: readers, classKeys: primary.classKeys, lockState: primary.lockState,
                generation: primary.classKeysGeneration))
        free = DispatchSemaphore(value: count)
        self.count = count
    }

    /// Returns once every read that had a reader when it was called has ended (reads that start meanwhile wait):
    /// after a lock, no reader decrypts with the keys it closed.
    func waitForReadsInProgress() {
        for _ in 0..<count { free.wait() }
        for _ in 0..<count { free.signal() }
    }

    /// Runs `body` on a free reader, waiting for one when all are in use.
    func read<Result>(_ body: (KeychainEngine) throws -> Result) throws -> Result {
        free.wait()
        defer { free.signal() }
        let reader = state.withLock { state in Lent(state.idle.removeLast()) }.engine
        defer {
            let returned = Lent(reader)
            state.withLock { state in
                Self.follow(state, returned.engine)
                state.idle.append(returned.engine)
            }
        }
        return try body(reader)
    }

    /// Hands `primary`'s class keys and lock state to every reader when they changed since the last call: the idle
    /// ones now, the busy ones when they come back.
    func publish(from primary: KeychainEngine) {
        let generation = primary.classKeysGeneration
        state.withLock { state in
            guard state.generation != generation else { return }
            state.generation = generation
            state.classKeys = primary.classKeys
            state.lockState = primary.lockState
            for reader in state.idle { Self.follow(state, reader) }
        }
    }

    /// Gives `reader` the published class keys and lock state, unless it has them.
    private static func follow(_ state: State, _ reader: KeychainEngine) {
        guard reader.followedGeneration != state.generation else { return }
        reader.classKeys = state.classKeys
        reader.lockState = state.lockState
        reader.followedGeneration = state.generation
    }

    /// A reader on its way out of or back into the pool, used by one thread at a time.
    private struct Lent: @unchecked Sendable {
        let engine: KeychainEngine
        init(_ engine: KeychainEngine) { self.engine = engine }
    }
}
