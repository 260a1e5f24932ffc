import ClavisCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A private folder under the system's temporary folder (mode 0700), removed with everything in it by `remove()`.
struct TemporaryFolder: Sendable {
    /// The folder's absolute path.
    let path: String

    /// Creates a new folder whose name starts with `prefix`.
    ///
    /// - Throws: `io` with the system's reason when it cannot be made.
    init(prefix: String) throws(KeychainError) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        // The name is read while the buffer mkdtemp filled in is still lent out.
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else {
            throw KeychainError(.io, "cannot make a temporary folder in \(base): \(String(cString: strerror(errno)))")
        }
        path = made
    }

    /// The existing folder at `path`.
    init(existing path: String) { self.path = path }

    /// Removes the file `name` from the folder, if it is there.
    func removeFile(_ name: String) {
        unlink(path + "/" + name)
    }

    /// Writes `text` to the file `name` in the folder (replacing it) with `mode`.
    ///
    /// - Throws: `io` naming the file.
    func write(_ text: String, to name: String, mode: mode_t = 0o600) throws(KeychainError) {
        let file = path + "/" + name
        do {
            try Data(text.utf8).write(to: URL(filePath: file), options: .atomic)
        } catch {
            throw KeychainError(.io, "cannot write \(file): \(error)")
        }
        guard chmod(file, mode) == 0 else {
            throw KeychainError(.io, "cannot set the mode of \(file): \(String(cString: strerror(errno)))")
        }
    }

    /// The contents of the file `name`, or `nil` when it cannot be read.
    func read(_ name: String) -> Data? {
        FileManager.default.contents(atPath: path + "/" + name)
    }

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
