internal import CUnixSocket
public import ClavisCore
import ClavisIdentity

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

    /// The SHA-256 of the executable's contents, hexadecimal (cached by file version).
    public func executableDigest() -> String? {
        executable.flatMap(ExecutableDigest.sha256(of:))
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
