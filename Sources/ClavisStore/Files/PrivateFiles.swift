import ClavisCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few POSIX file operations the store needs, with owner-only permissions and typed errors.
enum PrivateFiles {
    /// Creates `path` as a folder readable only by its owner (0700) unless it exists.
    static func makeOwnerOnlyFolder(_ path: String) throws(KeychainError) {
        var parent = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            parent += "/" + component
            if mkdir(parent, 0o700) != 0 && errno != EEXIST {
                throw KeychainError(.io, "cannot create folder \(parent): \(describeErrno())")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw KeychainError(.io, "\(path) is not a folder")
        }
        guard status.st_uid == geteuid() else {
            throw KeychainError(.io, "\(path) belongs to another user; a keychain folder must be its owner's")
        }
        try restrictToOwner(path, mode: 0o700)
    }

    /// Creates the file at `path` with mode 0600 unless it exists, and narrows an existing one to 0600.
    static func makeOwnerOnlyFile(_ path: String) throws(KeychainError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        guard errno == EEXIST else { throw KeychainError(.io, "cannot create \(path): \(describeErrno())") }
        try restrictToOwner(path, mode: 0o600)
    }

    /// Sets `mode` on an existing file or folder whose permissions give the group or others any access.
    static func restrictToOwner(_ path: String, mode: mode_t) throws(KeychainError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw KeychainError(.io, "cannot read \(path): \(describeErrno())") }
        guard status.st_mode & 0o077 != 0 else { return }
        guard chmod(path, mode) == 0 else {
            throw KeychainError(.io, "cannot restrict \(path) to its owner: \(describeErrno())")
        }
    }

    /// True when something exists at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// The size of the file at `path`, or `nil` when there is none.
    static func size(_ path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// Reads a small file whole into a zeroing buffer, failing if it is larger than `limit` bytes.
    static func readSecret(_ path: String, limit: Int) throws(KeychainError) -> SecureBytes {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw KeychainError(.io, "cannot open \(path): \(describeErrno())")
        }
        defer { close(descriptor) }
        var readCount = 0
        let contents = try? SecureBytes(count: limit + 1) { buffer in
            while readCount <= limit {
                let result = read(descriptor, buffer.baseAddress! + readCount, limit + 1 - readCount)
                if result < 0 && errno == EINTR { continue }
                guard result >= 0 else { throw KeychainError(.io, "cannot read \(path): \(describeErrno())") }
                if result == 0 { break }
                readCount += result
            }
        }
        guard let contents else { throw KeychainError(.io, "cannot read \(path)") }
        return contents.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<readCount])) }
    }

    /// Writes `contents` to `path` with mode 0600 unless a file is already there; returns false when one was.
    ///
    /// The bytes go to a temporary file that is synced and then hard-linked into place, so a reader never sees a
    /// half-written file and two processes racing to create it agree on one.
    static func createSecretFile(_ path: String, contents: SecureBytes) throws(KeychainError) -> Bool {
        let temporary = path + ".tmp.\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.io, "cannot create \(temporary): \(describeErrno())")
        }
        defer { unlink(temporary) }
        let written = contents.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress, buffer.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == contents.count, synced == 0 else {
            throw KeychainError(.io, "cannot write \(temporary): \(describeErrno())")
        }
        if link(temporary, path) != 0 {
            if errno == EEXIST { return false }
            throw KeychainError(.io, "cannot create \(path): \(describeErrno())")
        }
        return true
    }

    private static func describeErrno() -> String {
        String(cString: strerror(errno))
    }
}
