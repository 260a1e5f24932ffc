import ClavisCore
import ClavisStore
import Dispatch
import Foundation
import Synchronization

/// Reads by primary key on one keychain opened as clavisd opens it (`Keychain.daemonReaders` readers beside the
/// writer), from one thread and then from as many threads as there are readers, in one process: whether the
/// keychain's own read path scales with processors, apart from the process switches a read through the daemon's
/// socket also costs. Beside them, the same threads on a keychain without readers.
enum ParallelReads {
    /// The two rows' text: reads a second from one thread, and from `Keychain.daemonReaders` threads at once.
    static func rows(_ bench: BenchKeychain, reads: Int) throws -> [String] {
        let threads = Keychain.daemonReaders
        let keychain = try Keychain(home: bench.home, mapsDatabase: false, readers: threads)
        let single = try rate(keychain, bench, threads: 1, reads: reads)
        let parallel = try rate(keychain, bench, threads: threads, reads: reads)
        // The same threads on a keychain without readers, whose one connection serves a read at a time.
        let serialised = try rate(
            try Keychain(home: bench.home, mapsDatabase: false), bench, threads: threads, reads: reads)
        return [
            String(format: "engine reads with readers at %d items, 1 thread: %.0f reads/s", bench.size, single),
            String(
                format: "engine reads with readers at %d items, %d threads: %.0f reads/s (%.2fx one thread's; "
                    + "%.0f reads/s on one connection)",
                bench.size, threads, parallel, parallel / single, serialised),
        ]
    }

    /// Reads a second when `threads` threads each read `reads` random bench items by primary key.
    private static func rate(_ keychain: Keychain, _ bench: BenchKeychain, threads: Int, reads: Int) throws -> Double {
        let failures = Atomic<Int>(0)
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<reads {
                let index = Int.random(in: 0..<bench.size, using: &generator)
                let query = Workloads.primaryKeyQuery(index, accessGroups: [bench.accessGroup])
                let found = try? keychain.find(query).resultOrThrow()
                if found?.first?.secret != SecureBytes(Workloads.secret(index)) {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard failures.load(ordering: .relaxed) == 0 else {
            throw Workloads.BenchError.status("parallel reads found a wrong or missing item", -1)
        }
        return Double(threads * reads) / seconds
    }
}
