internal import ClavisCore
internal import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The open keychain folder: its descriptor, owned here and closed in `deinit`, through which every file of the
/// keychain is reached by name.
///
/// The folder is opened with `O_DIRECTORY | O_NOFOLLOW` and each file with `openat(…, O_NOFOLLOW)`, so a symbolic
/// link planted in place of the folder or of a file is refused, never followed. Owner and type are checked on the
/// opened descriptor (`fstat`) and permissions narrowed with `fchmod`: nothing is checked or changed through a path
/// that could be swapped in between.
final class KeychainFolder {
    /// The folder's path, for messages.
    let path: String
    /// The open folder.
    private let folder: FileDescriptor
    /// Its descriptor's number.
    private var descriptor: Int32 { folder.rawValue }

    /// Opens the folder at `path`, creating it (and missing parents) with mode 0700 when absent.
    ///
    /// - Throws: `io` naming the folder and the reason: it cannot be created, is a symbolic link or not a folder,
    ///   or belongs to another user.
    init(_ path: String, creatingIfMissing: Bool = true) throws(KeychainError) {
        self.path = path
        if creatingIfMissing {
            // A relative path stays relative: its folders are made from the current one, never from the root.
            var parent = path.hasPrefix("/") ? "" : "."
            for component in path.split(separator: "/", omittingEmptySubsequences: true) {
                parent += "/" + component
                if mkdir(parent, 0o700) != 0 && errno != EEXIST {
                    throw KeychainError(.io, "cannot create folder \(parent): \(SystemError.text(errno))")
                }
            }
        }
        do throws(SystemError) {
            folder = try FileDescriptor(opening: path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        } catch {
            var status = stat()
            let isLink = lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
            throw Self.openError(path, error.code == ENOTDIR && isLink ? ELOOP : error.code, what: "keychain folder")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw KeychainError(.io, "cannot inspect folder \(path): \(SystemError.text(errno))")
        }
        guard status.st_uid == geteuid() else {
            throw KeychainError(.io, "\(path) belongs to another user; a keychain folder must be its owner's")
        }
        if status.st_mode & 0o077 != 0, fchmod(descriptor, 0o700) != 0 {
            throw KeychainError(.io, "cannot restrict folder \(path) to its owner: \(SystemError.text(errno))")
        }
    }

    /// The path of the file `name` in this folder, for messages and for SQLite.
    func path(of name: String) -> String { path + "/" + name }

    /// The folder's path with every symbolic link of its parents resolved, checked to be this very folder: what
    /// SQLite is given, with links refused along the whole path (`SQLITE_OPEN_NOFOLLOW`).
    func resolvedPath() throws(KeychainError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw KeychainError(.io, "cannot resolve folder \(path): \(SystemError.text(errno))")
        }
        defer { free(resolved) }
        let text = String(cString: resolved)
        var opened = stat()
        var named = stat()
        guard fstat(descriptor, &opened) == 0, lstat(text, &named) == 0, opened.st_dev == named.st_dev,
            opened.st_ino == named.st_ino
        else {
            throw KeychainError(.io, "folder \(path) changed while it was being opened")
        }
        try Self.checkParentsCannotBeSwapped(text)
        return text
    }

    /// Refuses a folder below one that anybody may write without the sticky bit: there another user could rename
    /// the keychain folder away and put one of theirs in its place between the check and SQLite's open.
    private static func checkParentsCannotBeSwapped(_ resolved: String) throws(KeychainError) {
        var parent = PathParts(resolved).folder
        while true {
            var status = stat()
            if lstat(parent, &status) == 0, status.st_mode & S_IWOTH != 0, status.st_mode & S_ISVTX == 0 {
                throw KeychainError(
                    .io,
                    "\(parent) may be written by any user and has no sticky bit, so the keychain folder below it "
                        + "could be swapped; a keychain folder must not lie below such a folder")
            }
            if parent == "/" || parent == "." { return }
            parent = PathParts(parent).folder
        }
    }

    /// Opens the file `name` for reading (never through a symbolic link), creating it with mode 0600 when it is
    /// missing and `creating` allows, and checks that it is a regular file of this user, narrowing its mode to 0600.
    ///
    /// An existing file is opened read-only, so a keychain on a read-only file system still opens; only a missing
    /// one is created (`O_CREAT | O_EXCL`, opened again if another process created it meanwhile).
    /// - Returns: the open file, or `nil` when the file does not exist and may not be created.
    func openFile(_ name: String, creating: Bool = false) throws(KeychainError) -> FileDescriptor? {
        let opened: FileDescriptor
        do throws(SystemError) {
            opened = try open(name, creating: creating)
        } catch {
            if error.code == ENOENT && !creating { return nil }
            throw Self.openError(path(of: name), error.code, what: "file")
        }
        try checkOwnedRegularFile(opened.rawValue, name)
        return opened
    }

    /// The file `name` opened read-only; when `creating` and it is missing, created (`O_EXCL`), or opened again if
    /// another process created it meanwhile.
    private func open(_ name: String, creating: Bool) throws(SystemError) -> FileDescriptor {
        let flags = O_NOFOLLOW | O_NONBLOCK
        while true {
            do throws(SystemError) {
                return try FileDescriptor(opening: name, in: descriptor, O_RDONLY | flags)
            } catch  where error.code == ENOENT && creating {
                do throws(SystemError) {
                    return try FileDescriptor(
                        opening: name, in: descriptor, O_RDWR | O_CREAT | O_EXCL | flags, mode: 0o600)
                } catch  where error.code == EEXIST {
                    continue
                }
            }
        }
    }

    /// Makes sure the file `name` exists as a regular file of this user with mode 0600.
    func ensureFile(_ name: String) throws(KeychainError) {
        _ = try openFile(name, creating: true)
    }

    /// Checks, when the file `name` exists, that it is a regular file of this user, narrowing its mode to 0600.
    func checkFileIfPresent(_ name: String) throws(KeychainError) {
        _ = try openFile(name)
    }

    /// True when the folder's file system is mounted read-only.
    var isOnReadOnlyFileSystem: Bool {
        var status = statvfs()
        return fstatvfs(descriptor, &status) == 0 && status.f_flag & UInt(ST_RDONLY) != 0
    }

    /// The device and inode of the file `name` in this folder (opened with `O_NOFOLLOW`), or `nil` when there is
    /// none or it is a link.
    func identity(of name: String) -> (device: UInt64, inode: UInt64)? {
        guard let opened = try? FileDescriptor(opening: name, in: descriptor, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        else { return nil }
        var status = stat()
        guard fstat(opened.rawValue, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// The size of the file `name`, or `nil` when there is none (a link is not followed).
    func size(of name: String) -> Int? {
        var status = stat()
        return fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? Int(status.st_size) : nil
    }

    /// Reads the small file `name` whole into a zeroing buffer; `nil` when it does not exist.
    ///
    /// - Throws: `invalidKeychain` when it holds more than `limit` bytes, `io` when it cannot be read.
    func readSecret(_ name: String, limit: Int) throws(KeychainError) -> SecureBytes? {
        guard let opened = try openFile(name) else { return nil }
        do {
            return try SecureBytes.read(from: opened.rawValue, limit: limit) ?? SecureBytes([])
        } catch {
            switch error {
            case .tooLong: throw KeychainError(.invalidKeychain, "\(path(of: name)) holds more than \(limit) bytes")
            case .failed(let failure): throw KeychainError(.io, "cannot read \(path(of: name)): \(failure)")
            }
        }
    }

    /// Writes `contents` as the file `name` with mode 0600 unless one is already there; returns false when one was.
    ///
    /// The bytes go to a temporary file that is synced and then hard-linked into place (`PrivateFile`), so a reader
    /// never sees a half-written file and two processes racing to create it agree on one.
    func createSecretFile(_ name: String, contents: SecureBytes) throws(KeychainError) -> Bool {
        do throws(PrivateFile.Failure) {
            try contents.withUnsafeBytes { bytes in
                Result { () throws(PrivateFile.Failure) in
                    try PrivateFile.save(bytes, as: name, in: descriptor, placement: .new)
                }
            }.get()
            return true
        } catch {
            switch error.step {
            case .create:
                throw KeychainError(
                    .io, "cannot create \(path(of: error.temporary)): \(SystemError.text(error.code))")
            case .write:
                throw KeychainError(
                    error.code == ENOSPC || error.code == EDQUOT ? .diskFull : .io,
                    "cannot write \(path(of: error.temporary)): \(SystemError.text(error.code))")
            case .place:
                if error.code == EEXIST { return false }
                throw KeychainError(.io, "cannot create \(path(of: name)): \(SystemError.text(error.code))")
            }
        }
    }

    private func checkOwnedRegularFile(_ opened: Int32, _ name: String) throws(KeychainError) {
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            throw KeychainError(.io, "cannot inspect \(path(of: name)): \(SystemError.text(errno))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw KeychainError(.io, "\(path(of: name)) is not a regular file")
        }
        guard status.st_uid == geteuid() else {
            throw KeychainError(.io, "\(path(of: name)) belongs to another user; a keychain file must be its owner's")
        }
        if status.st_mode & 0o077 != 0, fchmod(opened, 0o600) != 0 {
            throw KeychainError(.io, "cannot restrict \(path(of: name)) to its owner: \(SystemError.text(errno))")
        }
    }

    private static func openError(_ path: String, _ code: Int32, what: String) -> KeychainError {
        switch code {
        case ELOOP:
            KeychainError(.io, "\(path) is a symbolic link; a keychain never follows one")
        case ENOTDIR:
            KeychainError(.io, "\(path) is not a folder")
        default:
            KeychainError(code == ENOSPC ? .diskFull : .io, "cannot open \(what) \(path): \(SystemError.text(code))")
        }
    }
}
