import ClavisCrypto
import ClavisSystem
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The SHA-256 of an executable's contents, as an app registration pins it (lowercase hexadecimal).
public enum ExecutableDigest {
    /// The digest of the file at `path`; `nil` when it cannot be read.
    public static func sha256(of path: String) -> String? {
        guard let file = try? FileDescriptor(opening: path, O_RDONLY) else { return nil }
        return sha256(ofDescriptor: file.rawValue)
    }

    /// The digest of the file open as `descriptor` (read from the descriptor, so it is the file that is open, not
    /// whatever a path names now), cached by device, inode, size and modification time; `nil` when it cannot be
    /// read.
    public static func sha256(ofDescriptor descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        let version = FileVersion(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
        if let known = digests.withLock({ $0[version] }) { return known }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            contents += chunk[..<count]
            offset += off_t(count)
        }
        let digest = SHA256.hash(contents).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
        digests.withLock { $0[version] = digest }
        return digest
    }

    private struct FileVersion: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
    }

    private static let digests = Mutex<[FileVersion: String]>([:])
}
