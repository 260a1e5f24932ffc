public import ClavisSystem

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
                let count = SystemCall.retrying { Glibc.read(descriptor, bytes.baseAddress! + length, wanted) }
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

    /// Reads one length-prefixed secret from `descriptor`: a 32-bit big-endian length, then exactly that many bytes,
    /// each of them part of the secret (a line break or any other byte). Nothing past it is read.
    ///
    /// - Returns: the bytes; `nil` when the input ended before the length.
    /// - Throws: `failed` when a read fails or the input ends inside the secret, `tooLong` for a length past `limit`
    ///   (its bytes are left unread).
    public static func readLengthPrefixed(from descriptor: Int32, limit: Int) throws(SecureReadError) -> SecureBytes? {
        var header = [UInt8](repeating: 0, count: 4)
        let headerRead = header.withUnsafeMutableBytes { readExactly(descriptor, into: $0) }
        if headerRead == 0 { return nil }
        guard headerRead == 4 else {
            throw .failed(SystemError(headerRead < 0 ? Int32(-headerRead) : EPIPE))
        }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= limit else { throw .tooLong(limit: limit) }
        var result = 0
        let secret = SecureBytes(count: length) { bytes in
            result = readExactly(descriptor, into: bytes)
        }
        guard result == length else { throw .failed(SystemError(result < 0 ? Int32(-result) : EPIPE)) }
        return secret
    }

    /// Reads until `buffer` is full or the input ends: the count read, or minus the error number of a failed read.
    private static func readExactly(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = SystemCall.retrying {
                Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 { return -Int(errno) }
            if count == 0 { break }
            filled += count
        }
        return filled
    }
}
