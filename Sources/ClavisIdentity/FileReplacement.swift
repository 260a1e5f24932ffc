#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Who may change or replace a file: anyone other than the users trusted with it who can write the file, or rename
/// or replace it or any folder above it.
public enum FileReplacement {
    /// Why a user outside `trusted` could change the file at `path` or put another in its place: a file or folder
    /// that another user owns, or that its group or others may write (a sticky folder, such as /tmp, only when the
    /// entry in it is not a trusted user's); `nil` when only trusted users can. `root` is prefixed to every path
    /// looked at (`/proc/PID/root` to look in a process's view of the file system).
    public static func reason(_ path: String, trusted: Set<UInt32>, root: String = "") -> String? {
        var components = path.split(separator: "/").map(String.init)
        var info = stat()
        guard lstat(root + path, &info) == 0 else { return "\(path) cannot be looked at" }
        if info.st_mode & S_IFMT == S_IFLNK { return "\(path) is a symbolic link" }
        if !trusted.contains(info.st_uid) { return "\(path) belongs to user \(info.st_uid)" }
        if info.st_mode & 0o022 != 0 { return "\(path) is writable by its group or others" }
        var entryOwner = info.st_uid
        while !components.isEmpty {
            components.removeLast()
            let folder = "/" + components.joined(separator: "/")
            guard lstat(root + folder, &info) == 0 else { return "\(folder) cannot be looked at" }
            if !trusted.contains(info.st_uid) { return "\(folder) belongs to user \(info.st_uid)" }
            let sticky = info.st_mode & S_ISVTX != 0
            if info.st_mode & 0o022 != 0 && !(sticky && trusted.contains(entryOwner)) {
                return "\(folder) is writable by its group or others"
            }
            entryOwner = info.st_uid
        }
        return nil
    }
}
