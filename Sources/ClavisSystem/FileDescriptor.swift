#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An open file descriptor that this value owns: closed when the value ends, so no path through a function (an
/// early return, a thrown error) leaks it or closes it twice. Not copyable; `release()` hands the number on.
public struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor's number, for a system call.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`, an open descriptor.
    public init(owning rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Opens `path` (`open(2)`, retried when a signal interrupts it) with `flags` and `O_CLOEXEC`, creating it with
    /// `mode` when `flags` hold `O_CREAT`.
    ///
    /// - Throws: the `errno` of the failure.
    public init(opening path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError) {
        rawValue = try SystemCall.checked { open(path, flags | O_CLOEXEC, mode) }
    }

    /// Opens `name` relative to the folder open as `folder` (`openat(2)`), as `init(opening:_:mode:)` does.
    ///
    /// - Throws: the `errno` of the failure.
    public init(opening name: String, in folder: Int32, _ flags: Int32, mode: mode_t = 0) throws(SystemError) {
        rawValue = try SystemCall.checked { openat(folder, name, flags | O_CLOEXEC, mode) }
    }

    /// Gives the descriptor up without closing it: its new owner closes it.
    public consuming func release() -> Int32 {
        let number = rawValue
        discard self
        return number
    }

    deinit { close(rawValue) }
}
