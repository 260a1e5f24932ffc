public import FoundationEssentials

/// Reads what a `ByteWriter` wrote, never trapping: a truncated or malformed input throws `decode`.
public struct ByteReader {
    private let bytes: [UInt8]
    private var offset: Int
    /// What is being read, named in errors ("item attributes", "a daemon message").
    private let subject: String

    /// A reader over `bytes`, starting at `offset`.
    public init(_ bytes: [UInt8], offset: Int = 0, subject: String) {
        self.bytes = bytes
        self.offset = offset
        self.subject = subject
    }

    /// How many bytes have been read: where the next read starts.
    public var position: Int { offset }

    /// True when every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// The next `count` bytes.
    public mutating func take(_ count: Int) throws(KeychainError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else { throw malformed("truncated") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// One byte.
    public mutating func byte() throws(KeychainError) -> UInt8 { try take(1).first! }

    /// A boolean written as one byte (any non-zero byte is true).
    public mutating func bool() throws(KeychainError) -> Bool { try byte() != 0 }

    /// A 32-bit big-endian integer.
    public mutating func uint32() throws(KeychainError) -> UInt32 {
        try take(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A 64-bit big-endian integer.
    public mutating func uint64() throws(KeychainError) -> UInt64 {
        try take(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A signed 64-bit big-endian integer.
    public mutating func int64() throws(KeychainError) -> Int64 { Int64(bitPattern: try uint64()) }

    /// Bytes with a 32-bit length.
    public mutating func lengthPrefixed() throws(KeychainError) -> ArraySlice<UInt8> {
        try take(Int(try uint32()))
    }

    /// Bytes with a 32-bit length, as `Data`.
    public mutating func data() throws(KeychainError) -> Data { Data(try lengthPrefixed()) }

    /// A UTF-8 string with a 32-bit length.
    public mutating func string() throws(KeychainError) -> String {
        String(decoding: try lengthPrefixed(), as: UTF8.self)
    }

    /// A secret with a 32-bit length, copied into a zeroing container.
    public mutating func secret() throws(KeychainError) -> SecureBytes { SecureBytes(try lengthPrefixed()) }

    /// A presence byte, then the value when present.
    public mutating func optional<Value>(_ read: (inout ByteReader) throws(KeychainError) -> Value)
        throws(KeychainError) -> Value?
    {
        try bool() ? try read(&self) : nil
    }

    /// An error saying what is wrong with the input.
    public func malformed(_ what: String) -> KeychainError {
        KeychainError(.decode, "\(subject) is malformed: \(what)")
    }
}
