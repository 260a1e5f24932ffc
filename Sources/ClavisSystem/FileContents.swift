#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading an open file whole, for files that hold no secret (a backup's sealed bytes, the access log).
public enum FileContents {
    /// The bytes of `descriptor` from its offset to its end, at most `limit` (what lies beyond is left unread).
    ///
    /// - Throws: the system's error when a read fails.
    public static func read(_ descriptor: Int32, limit: Int) throws(SystemError) -> [UInt8] {
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while contents.count < limit {
            let wanted = min(chunk.count, limit - contents.count)
            let count = try SystemCall.checked {
                chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            }
            if count == 0 { break }
            contents += chunk[0..<count]
        }
        return contents
    }
}
