#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why reading a descriptor into a `SecureBytes` gave no bytes.
public enum SecureReadError: Error, Sendable, Equatable {
    /// The read failed (an I/O error, a folder given as a file).
    case failed(SystemError)
    /// There were more than the limit's bytes (before the delimiter, when one was given).
    case tooLong(limit: Int)
}

extension SecureBytes {
    /// Reads `descriptor` into a zeroing buffer until the end of input, or until `delimiter`, which is consumed but
    /// not kept (then one byte is read at a time, so nothing after it is taken from a shared input).
    ///
    /// The bytes never pass through an ordinary array or string.
    /// - Returns: the bytes; `nil` when the input ended before any byte (or delimiter) came.
    /// - Throws: `failed` with the system's error when a read fails (never the bytes read so far), `tooLong` past
    ///   `limit` bytes.
    public static func read(from descriptor: Int32, limit: Int, upTo delimiter: UInt8? = nil)
        throws(SecureReadError) -> SecureBytes?
    {
        var length = 0
        var sawAnything = false
        var failure: Int32 = 0
        let buffer = SecureBytes(count: limit + 1) { bytes in
            while length <= limit {
                let wanted = delimiter == nil ? limit + 1 - length : 1
                let count = Glibc.read(descriptor, bytes.baseAddress! + length, wanted)
                if count < 0 && errno == EINTR { continue }
                if count < 0 { failure = errno }
                if count <= 0 { break }
                sawAnything = true
                if let delimiter, bytes[length] == delimiter {
                    bytes[length] = 0
                    break
                }
                length += count
            }
        }
        if failure != 0 { throw .failed(SystemError(failure)) }
        if length > limit { throw .tooLong(limit: limit) }
        guard sawAnything else { return nil }
        return buffer.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }
}
