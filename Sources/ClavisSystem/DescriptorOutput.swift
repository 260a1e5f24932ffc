#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to an open descriptor (standard output, standard error, a pipe) without losing what a short or
/// interrupted write leaves over.
public enum DescriptorOutput {
    /// Writes all of `bytes` to `descriptor`, retrying where a signal interrupted a write; false when a write fails
    /// (a pipe nobody reads any more).
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = SystemCall.retrying { write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
