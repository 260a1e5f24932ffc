internal import CUnixSocket

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A process's executable file, held open.
public final class RunningExecutable: Sendable {
    /// The open file.
    private let file: FileDescriptor
    /// Its descriptor's number.
    package var descriptor: Int32 { file.rawValue }
    /// Its device.
    public let device: UInt64
    /// Its inode.
    public let inode: UInt64

    /// Opens the executable of process `pid`; `nil` when the daemon may not.
    package init?(pid: Int32) {
        let opened = clavis_open_process_executable(pid)
        guard opened >= 0 else { return nil }
        let file = FileDescriptor(owning: opened)
        var device: UInt64 = 0
        var inode: UInt64 = 0
        guard clavis_file_identity(opened, &device, &inode) == 0 else { return nil }
        self.file = file
        self.device = device
        self.inode = inode
    }
}

/// A process's folder in /proc, open (`O_PATH`): bound to that process, so that once it has ended nothing is found
/// through it, even when another process has its pid.
package final class ProcessDirectory: Sendable {
    /// The open folder.
    private let folder: FileDescriptor
    /// Its descriptor's number.
    private var descriptor: Int32 { folder.rawValue }

    /// Opens the folder of process `pid`; `nil` when it cannot be opened.
    package init?(pid: Int32) {
        let opened = clavis_open_process_directory(pid)
        guard opened >= 0 else { return nil }
        folder = FileDescriptor(owning: opened)
    }

    /// The whole contents of the file `name` in the process's folder (`status`, `environ`, `maps`); `nil` when it
    /// cannot be read (the process ended, or the daemon may not look).
    package func contents(of name: String) -> [UInt8]? {
        guard let file = try? FileDescriptor(opening: name, in: descriptor, O_RDONLY) else { return nil }
        return try? FileContents.read(file.rawValue, limit: Self.largestFile)
    }

    /// How much of a file of the folder is read at most: more than any `status`, `environ` or `maps` holds.
    private static let largestFile = 64 << 20

    /// The environment the process was started with: /proc/PID/environ, or, when that file's mode keeps a daemon with
    /// only `CAP_SYS_PTRACE` out (a non-dumpable process's files are root's), the same bytes read from its memory
    /// between the `env_start` and `env_end` that /proc/PID/stat gives. `nil` when neither can be read.
    package func startingEnvironment(pid: Int32) -> [UInt8]? {
        if let environment = contents(of: "environ") { return environment }
        guard let stat = contents(of: "stat"), let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // Fields from the third (state) on, after the command's name in parentheses; env_start is the 50th.
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 48, let start = UInt64(String(decoding: fields[47], as: UTF8.self)),
            let end = UInt64(String(decoding: fields[48], as: UTF8.self)), start > 0, end > start,
            end - start <= 1 << 20
        else { return nil }
        var environment = [UInt8](repeating: 0, count: Int(end - start))
        let read = environment.withUnsafeMutableBytes {
            clavis_read_process_memory(pid, start, $0.baseAddress, $0.count)
        }
        guard read == environment.count else { return nil }
        return environment
    }

    /// The device and inode of the process's mount namespace (`ns/mnt`); `nil` when the daemon may not look.
    package func mountNamespace() -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard fstatat(descriptor, "ns/mnt", &info, 0) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// The device and inode of the executable the process runs now; `nil` once it has ended, or when the daemon may
    /// not look.
    package func executableIdentity() -> (device: UInt64, inode: UInt64)? {
        var device: UInt64 = 0
        var inode: UInt64 = 0
        guard clavis_process_executable_identity(descriptor, &device, &inode) == 0 else { return nil }
        return (device, inode)
    }
}
