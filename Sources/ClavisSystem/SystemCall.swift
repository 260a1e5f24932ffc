#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A system call run again while a signal interrupts it (`EINTR`), its failure the `errno` it left: the one place
/// that handles both, so that no caller loops on `EINTR` by hand.
public enum SystemCall {
    /// Runs `call` again while it fails with `EINTR`; its result, negative (with `errno` set) when it failed
    /// otherwise.
    public static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Runs `call` as `retrying` does; its result, or the `errno` of its failure thrown.
    public static func checked<Result: BinaryInteger>(_ call: () -> Result) throws(SystemError) -> Result {
        let result = retrying(call)
        guard result >= 0 else { throw SystemError(errno) }
        return result
    }
}
