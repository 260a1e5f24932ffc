internal import CUnixSocket
public import ClavisCore
import ClavisIdentity

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The process at the other end of a connection, as the kernel tells it: never as the client says.
public struct PeerProcess: Sendable {
    /// Its process id at connect time.
    public var pid: Int32
    /// Its user.
    public var uid: UInt32
    /// Its group.
    public var gid: UInt32
    /// Its executable's path as the kernel names it (`/proc/<pid>/exe`), or `nil` when the daemon may not read it
    /// (another user's non-dumpable process while the daemon lacks `CAP_SYS_PTRACE`).
    public var executable: String?
    /// The executable file that is running, open: its identity and contents are those of that file, whatever the
    /// path names in any mount namespace.
    public var executableFile: RunningExecutable?

    /// Identifies the peer of the connected socket `descriptor`. The process is pinned by a pidfd the kernel bound
    /// at connect time (`SO_PEERPIDFD`; on kernels before 6.5, `pidfd_open` of the `SO_PEERCRED` pid, which a
    /// process that exited and whose pid was reused could fool); its executable is opened and named while it is
    /// pinned, and it must still be running afterwards.
    ///
    /// What remains: a process that connects, then hands the connection to a child and execs another program, is
    /// identified by what it was when the daemon looked. Calls are answered for the identity found at connect.
    ///
    /// - Throws: `missingEntitlement` when the peer cannot be identified at all.
    public static func identify(descriptor: Int32) throws(KeychainError) -> PeerProcess {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        guard clavis_socket_peer(descriptor, &pid, &uid, &gid) == 0, pid > 0 else {
            throw KeychainError(.missingEntitlement, "the caller's credentials cannot be read from its connection")
        }
        var pidfd = clavis_socket_peer_pidfd(descriptor)
        if pidfd < 0 { pidfd = clavis_pidfd_open(pid) }
        guard pidfd >= 0 else {
            throw KeychainError(.missingEntitlement, "the calling process \(pid) is gone")
        }
        defer { close(pidfd) }
        let executable = ExecutableName.linkTarget("/proc/\(pid)/exe")
        let file = RunningExecutable(pid: pid)
        guard clavis_pidfd_is_alive(pidfd) == 1 else {
            throw KeychainError(.missingEntitlement, "the calling process \(pid) ended while it was identified")
        }
        return PeerProcess(pid: pid, uid: uid, gid: gid, executable: executable, executableFile: file)
    }

    /// True when the file at `path`, in the daemon's own view of the file system, is the running executable.
    public func isRunning(_ path: String) -> Bool {
        guard let executableFile else { return false }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return UInt64(info.st_dev) == executableFile.device && UInt64(info.st_ino) == executableFile.inode
    }

    /// The SHA-256 of the running executable's contents, hexadecimal (cached by file version).
    public func executableDigest() -> String? {
        executableFile.flatMap { ExecutableDigest.sha256(ofDescriptor: $0.descriptor) }
    }
}

/// A process's executable file, held open (the descriptor is closed in `deinit`).
public final class RunningExecutable: Sendable {
    /// The open file.
    let descriptor: Int32
    /// Its device.
    public let device: UInt64
    /// Its inode.
    public let inode: UInt64

    /// Opens the executable of process `pid`; `nil` when the daemon may not.
    init?(pid: Int32) {
        let descriptor = clavis_open_process_executable(pid)
        guard descriptor >= 0 else { return nil }
        var device: UInt64 = 0
        var inode: UInt64 = 0
        guard clavis_file_identity(descriptor, &device, &inode) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.device = device
        self.inode = inode
    }

    deinit {
        close(descriptor)
    }
}
