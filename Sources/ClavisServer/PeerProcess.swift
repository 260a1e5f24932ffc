internal import CUnixSocket
public import ClavisCore
import ClavisCrypto
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The process at the other end of a connection, as the kernel tells it: never as the client says.
public struct PeerProcess: Sendable, Hashable {
    /// Its process id at connect time.
    public var pid: Int32
    /// Its user.
    public var uid: UInt32
    /// Its group.
    public var gid: UInt32
    /// Its executable's path, or `nil` when the daemon may not read it (another user's non-dumpable process while
    /// the daemon lacks `CAP_SYS_PTRACE`).
    public var executable: String?

    /// Identifies the peer of the connected socket `descriptor`: `SO_PEERCRED` gives its pid, uid and gid; the
    /// process is pinned (`pidfd_open`) before its executable is read from `/proc/<pid>/exe`, and still running
    /// afterwards, so a pid reused in between cannot lend another program's identity.
    ///
    /// - Throws: `missingEntitlement` when the peer cannot be identified at all.
    public static func identify(descriptor: Int32) throws(KeychainError) -> PeerProcess {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        guard clavis_socket_peer(descriptor, &pid, &uid, &gid) == 0, pid > 0 else {
            throw KeychainError(.missingEntitlement, "the caller's credentials cannot be read from its connection")
        }
        let pidfd = clavis_pidfd_open(pid)
        guard pidfd >= 0 else {
            throw KeychainError(.missingEntitlement, "the calling process \(pid) is gone")
        }
        defer { close(pidfd) }
        let executable = readLink("/proc/\(pid)/exe")
        guard clavis_pidfd_is_alive(pidfd) == 1 else {
            throw KeychainError(.missingEntitlement, "the calling process \(pid) ended while it was identified")
        }
        return PeerProcess(pid: pid, uid: uid, gid: gid, executable: executable)
    }

    /// The SHA-256 of the executable's contents, hexadecimal; cached by device, inode, size and modification time.
    public func executableDigest() -> String? {
        guard let executable else { return nil }
        var info = stat()
        guard stat(executable, &info) == 0 else { return nil }
        let key = FileVersion(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
        if let known = Self.digests.withLock({ $0[key] }) { return known }
        guard let contents = FileManager.default.contents(atPath: executable) else { return nil }
        let digest = SHA256.hash(Array(contents)).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
        Self.digests.withLock { $0[key] = digest }
        return digest
    }

    private struct FileVersion: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
    }

    private static let digests = Mutex<[FileVersion: String]>([:])

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
