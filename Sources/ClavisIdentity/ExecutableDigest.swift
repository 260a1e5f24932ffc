import ClavisCrypto
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The SHA-256 of an executable's contents, as an app registration pins it (lowercase hexadecimal).
public enum ExecutableDigest {
    /// The digest of the file at `path`, cached by device, inode, size and modification time; `nil` when it cannot
    /// be read.
    public static func sha256(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let version = FileVersion(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
        if let known = digests.withLock({ $0[version] }) { return known }
        guard let contents = FileManager.default.contents(atPath: path) else { return nil }
        let digest = SHA256.hash(Array(contents)).map { byte in
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
