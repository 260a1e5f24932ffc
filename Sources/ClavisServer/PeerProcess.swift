public import ClavisCore
import ClavisIdentity
public import ClavisSystem

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
    /// The process's folder in /proc, open for as long as the connection lasts: bound to the process, not its pid.
    var directory: ProcessDirectory?
    /// Why the process is served as unregistered although it runs a registered app's executable (`HardenedRuntime`),
    /// or its program gets no identity at all; `nil` otherwise. The access log records it.
    public var unregisteredBecause: String?

    /// Identifies process `pid` of user `uid` (group `gid`), as a bus daemon or a socket names it, pinned by `pidfd`
    /// (borrowed; -1 to pin it here with `pidfd_open`, which a process that exited and whose pid was reused could
    /// fool): its executable is opened and named while it is pinned, and it must still be running afterwards.
    ///
    /// - Throws: `missingEntitlement` when the process is gone or cannot be pinned.
    public static func identify(pid: Int32, uid: UInt32, gid: UInt32, pidfd borrowed: Int32) throws(KeychainError)
        -> PeerProcess
    {
        guard pid > 0 else { throw KeychainError(.missingEntitlement, "the calling process \(pid) is gone") }
        if borrowed >= 0 { return try identify(pid: pid, uid: uid, gid: gid, pinnedBy: borrowed) }
        // Pinned here: the pidfd stays open until the process is identified.
        guard let pin = ProcessPin.open(pid) else {
            throw KeychainError(.missingEntitlement, "the calling process \(pid) is gone")
        }
        return try identify(pid: pid, uid: uid, gid: gid, pinnedBy: pin.rawValue)
    }

    /// `identify(pid:uid:gid:pidfd:)` with the process pinned by `pidfd`.
    private static func identify(pid: Int32, uid: UInt32, gid: UInt32, pinnedBy pidfd: Int32) throws(KeychainError)
        -> PeerProcess
    {
        let executable = ExecutableName.linkTarget("/proc/\(pid)/exe")
        let file = RunningExecutable(pid: pid)
        let directory = ProcessDirectory(pid: pid)
        // The process with this pid now must run as the user the credentials name (not another that has the pid).
        guard let status = directory?.contents(of: "status"), Self.status(status, namesUser: uid) else {
            throw KeychainError(.missingEntitlement, "the calling process \(pid) does not run as user \(uid)")
        }
        guard ProcessPin.isAlive(pidfd) else {
            throw KeychainError(.missingEntitlement, "the calling process \(pid) ended while it was identified")
        }
        return PeerProcess(
            pid: pid, uid: uid, gid: gid, executable: executable, executableFile: file, directory: directory)
    }

    /// True when a /proc/PID/status text's `Uid:` line has `uid` as the real, effective or saved user.
    static func status(_ status: [UInt8], namesUser uid: UInt32) -> Bool {
        for line in status.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Uid:".utf8)) {
            let users = line.dropFirst(4).split(whereSeparator: { $0 == 9 || $0 == 32 }).prefix(3)
            return users.contains { UInt32(String(decoding: $0, as: UTF8.self)) == uid }
        }
        return false
    }

    /// True while the peer still runs the executable it was identified by: the file its `/proc` folder's `exe`
    /// names now is the one opened at connect (same device and inode). A program that execs another one after
    /// connecting fails this, and so does a process that has ended (its folder, opened while it was pinned, finds
    /// nothing then, whoever has its pid now). One system call (`fstatat`, about 4 µs here).
    public func stillRunsTheIdentifiedProgram() -> Bool {
        guard let executableFile, let directory else { return false }
        guard let (device, inode) = directory.executableIdentity() else { return false }
        return device == executableFile.device && inode == executableFile.inode
    }

    /// The running executable's device and inode, as it was opened.
    var executableIdentity: FileIdentity? {
        executableFile.map { FileIdentity(device: $0.device, inode: $0.inode) }
    }

    /// True when the file at `path`, in the daemon's own view of the file system, is the running executable.
    public func isRunning(_ path: String) -> Bool {
        guard let executableFile else { return false }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return UInt64(info.st_dev) == executableFile.device && UInt64(info.st_ino) == executableFile.inode
    }

    /// True when `path` (the kernel's name for the running executable, in the process's own mount namespace) names
    /// that file for everyone: in the daemon's own view of the file system it is that file, or, where the daemon
    /// cannot look (a folder it may not enter, a private /tmp), the process shares the mount namespace of the
    /// system's init, where no unprivileged process can put another file over a path. A process in a mount namespace
    /// of its own (`unshare -m`) is named by a path only when the daemon sees that very file there.
    func isNamed(by path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 ? isRunning(path) : sharesTheSystemsMountNamespace()
    }

    /// True when the process is in the mount namespace of the system's init (pid 1), or, when the daemon may not
    /// look at init's (a daemon without `CAP_SYS_PTRACE`), the daemon's own.
    func sharesTheSystemsMountNamespace() -> Bool {
        guard let own = directory?.mountNamespace() else { return false }
        var reference = stat()
        guard stat("/proc/1/ns/mnt", &reference) == 0 || stat("/proc/self/ns/mnt", &reference) == 0 else {
            return false
        }
        return own.device == UInt64(reference.st_dev) && own.inode == UInt64(reference.st_ino)
    }

    /// The SHA-256 of the running executable's contents, hexadecimal (cached by file version).
    public func executableDigest() -> String? {
        executableFile.flatMap { ExecutableDigest.sha256(ofDescriptor: $0.descriptor) }
    }
}
