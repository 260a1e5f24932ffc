import ClavisCore
import ClavisSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The file `export -o` writes: readable only by its owner, never one of the keychain's own files, never an
/// existing file unless asked (`--force`), and never written through a symbolic link.
struct BackupFile {
    /// The path given with `-o`.
    var path: String
    /// The keychain whose files must never be overwritten.
    var keychain: KeychainHome

    /// Refuses the keychain's own files (and anything in its folder) always, and an existing file unless
    /// `replacing`.
    func checkWritable(replacing: Bool) throws(KeychainError) {
        if isKeychainFile {
            throw KeychainError(.param, "\(path) is one of the keychain's own files (in \(keychain.path))")
        }
        var status = stat()
        if !replacing, lstat(path, &status) == 0 {
            throw KeychainError(.param, "\(path) exists; give --force to replace it")
        }
    }

    /// Writes `archive` to a new temporary file beside `path` (mode 0600, synced), then moves it into place
    /// (`PrivateFile`): a rename when `replacing` (which replaces a link, never its target), else a hard link that
    /// fails when anything appeared at `path` meanwhile.
    func save(_ archive: Data, replacing: Bool) throws(KeychainError) {
        try checkWritable(replacing: replacing)
        do throws(PrivateFile.Failure) {
            try archive.withUnsafeBytes { bytes in
                Result { () throws(PrivateFile.Failure) in
                    try PrivateFile.save(bytes, as: path, in: AT_FDCWD, placement: replacing ? .replacing : .new)
                }
            }.get()
        } catch {
            switch error.step {
            case .create: throw failure("cannot create a temporary file in \(folder)", error.code)
            case .write: throw failure("cannot write \(error.temporary)", error.code)
            case .place where error.code == EEXIST && !replacing:
                throw KeychainError(.param, "\(path) exists; give --force to replace it")
            case .place: throw failure(replacing ? "cannot replace \(path)" : "cannot create \(path)", error.code)
            }
        }
    }

    /// Reads a backup file whole (at most 1 GiB).
    static func read(_ path: String) throws(KeychainError) -> Data {
        do throws(SystemError) {
            let file = try FileDescriptor(opening: path, O_RDONLY)
            return Data(try FileContents.read(file.rawValue, limit: 1 << 30))
        } catch {
            throw KeychainError(.io, "cannot read \(path): \(error)")
        }
    }

    /// True when `path` names a file of the keychain, through any link, or lies in the keychain's folder.
    private var isKeychainFile: Bool {
        if let resolvedFolder = Self.resolved(folder), resolvedFolder == Self.resolved(keychain.path) { return true }
        var target = stat()
        guard stat(path, &target) == 0 else { return false }
        if let resolvedTarget = Self.resolved(path), let home = Self.resolved(keychain.path),
            resolvedTarget.hasPrefix(home + "/")
        {
            return true
        }
        return keychain.ownFilePaths.contains { own in
            var status = stat()
            return stat(own, &status) == 0 && status.st_dev == target.st_dev && status.st_ino == target.st_ino
        }
    }

    private var folder: String { PathParts(path).folder }

    private func failure(_ what: String, _ code: Int32) -> KeychainError {
        KeychainError(
            code == ENOSPC || code == EDQUOT ? .diskFull : .io, "\(what): \(SystemError.text(code))")
    }

    private static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
