import ClavisCore
import ClavisStore
import Foundation

/// One of several processes sharing a keychain: adds `count` items under its own prefix, reading each back.
///
/// Prints `worker <prefix>: added N, read N, errors 0` and exits 0 only when nothing was lost or refused.
enum ContentionWorker {
    static func run(home: KeychainHome, prefix: String, count: Int) -> Int32 {
        var added = 0
        var read = 0
        var errors: [String] = []
        do {
            let keychain = try Keychain(home: home)
            for index in 0..<count {
                do {
                    _ = try keychain.add(Workloads.item(index, prefix: prefix)).resultOrThrow()
                    added += 1
                    let found = try keychain.find(Workloads.primaryKeyQuery(index, prefix: prefix)).resultOrThrow()
                    if found.count == 1 { read += 1 } else { errors.append("item \(index) not found after add") }
                } catch {
                    errors.append("item \(index): \(error)")
                }
            }
            let all = try keychain.find(
                ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("bench.service")])
            ).resultOrThrow()
            let mine = all.filter { $0.attributes[.account]?.stringValue?.hasPrefix(prefix + "-") == true }
            if mine.count != count { errors.append("listing shows \(mine.count) of \(count) items") }
        } catch {
            errors.append("open: \(error)")
        }
        print("worker \(prefix): added \(added), read \(read), errors \(errors.count)")
        for error in errors.prefix(5) { print("  \(error)") }
        return errors.isEmpty ? 0 : 1
    }

    /// Runs `processes` workers of this executable at once on one keychain and reports their combined throughput.
    static func measure(processes: Int, count: Int) throws -> String {
        let home = Workloads.temporaryHome()
        defer { Workloads.remove(home) }
        _ = try Keychain(home: home)
        let start = Date()
        let workers = try (0..<processes).map { index in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["contend-worker", home.path, "w\(index)", String(count)]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        for worker in workers { worker.waitUntilExit() }
        let seconds = Date().timeIntervalSince(start)
        let failed = workers.filter { $0.terminationStatus != 0 }.count
        return String(
            format: "%d processes x %d add+read: %.0f ops/s combined, %d failed", processes, count,
            Double(processes * count * 2) / seconds, failed)
    }
}
