import ClavisSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What one durable commit costs the file system alone: a 4 KiB write followed by `fdatasync`, as SQLite's
/// write-ahead log does for each commit under `synchronous = FULL`, in the keychain's own folder. No add can be
/// acknowledged faster than this on the same disk; the rows above it show how much of an add is the keychain's.
enum DurabilityFloor {
    /// `count` synced 4 KiB writes to a scratch file in `folder`, which is removed afterwards.
    static func measure(in folder: String, storeSize: Int, count: Int) throws -> Measurement {
        let path = folder + "/durability-floor"
        let file: FileDescriptor
        do throws(SystemError) {
            file = try FileDescriptor(opening: path, O_RDWR | O_CREAT | O_TRUNC, mode: 0o600)
        } catch {
            throw Workloads.BenchError.status("open \(path)", error.code)
        }
        defer { unlink(path) }
        let descriptor = file.rawValue
        let page = [UInt8](repeating: 0x5A, count: 4096)
        var floor = Measurement(name: "fdatasync 4 KiB", storeSize: storeSize)
        for index in 0..<count {
            var written = 0
            floor.time {
                let offset = off_t(index % 64) * 4096
                written = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) }
                if written == page.count && fdatasync(descriptor) != 0 { written = -1 }
            }
            guard written == page.count else { throw Workloads.BenchError.status("write \(path)", errno) }
        }
        return floor
    }
}
