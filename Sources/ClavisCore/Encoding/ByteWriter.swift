#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Builds a byte string: big-endian integers, length-prefixed byte runs and strings.
///
/// Used for the forms the keychain writes: sealed attributes, digests' input, the daemon's messages. A writer
/// that held a secret is wiped (`wipe()`) once its bytes are sent or sealed; when it grows, the storage it leaves
/// is zeroed first, so no copy of what it held stays behind in freed memory.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// Appends one byte.
    public mutating func byte(_ value: UInt8) {
        reserve(1)
        bytes.append(value)
    }

    /// Appends a boolean as one byte, 1 or 0.
    public mutating func bool(_ value: Bool) { byte(value ? 1 : 0) }

    /// Appends a 32-bit big-endian integer.
    public mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { append($0) } }

    /// Appends a 64-bit big-endian integer.
    public mutating func uint64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { append($0) } }

    /// Appends a signed 64-bit integer, big-endian.
    public mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }

    /// Appends raw bytes without a length.
    public mutating func raw(_ payload: some Collection<UInt8>) {
        if payload.withContiguousStorageIfAvailable({ append(UnsafeRawBufferPointer($0)) }) == nil {
            append(Array(payload))
        }
    }

    /// Appends a 32-bit length, then the bytes.
    public mutating func lengthPrefixed(_ payload: some Collection<UInt8>) {
        uint32(UInt32(payload.count))
        raw(payload)
    }

    /// Appends what `body` writes after its 32-bit length, written in place rather than built apart and copied.
    public mutating func lengthPrefixed(writing body: (inout ByteWriter) -> Void) {
        let start = bytes.count
        uint32(0)
        body(&self)
        let length = UInt32(bytes.count - start - 4).bigEndian
        withUnsafeBytes(of: length) { field in
            bytes.withUnsafeMutableBytes {
                $0.baseAddress!.advanced(by: start).copyMemory(from: field.baseAddress!, byteCount: 4)
            }
        }
    }

    /// Appends a string's UTF-8 bytes with a 32-bit length.
    public mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            uint32(UInt32(utf8.count))
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    /// Appends a secret with a 32-bit length.
    public mutating func secret(_ value: SecureBytes) {
        uint32(UInt32(value.count))
        value.withUnsafeBytes { append($0) }
    }

    /// Appends a presence byte, then the value when there is one.
    public mutating func optional<Value>(_ value: Value?, _ write: (inout ByteWriter, Value) -> Void) {
        bool(value != nil)
        if let value { write(&self, value) }
    }

    /// Zeroes the bytes written (they may hold a secret) and empties the writer.
    public mutating func wipe() {
        Self.zero(&bytes)
        bytes.removeAll()
    }

    /// Appends bytes in one copy.
    private mutating func append(_ buffer: UnsafeRawBufferPointer) {
        reserve(buffer.count)
        bytes.append(contentsOf: buffer)
    }

    private mutating func append(_ array: [UInt8]) {
        array.withUnsafeBytes { append($0) }
    }

    /// Makes room for `count` more bytes: a larger buffer (at least twice the size) takes the bytes, and the old one
    /// is zeroed before it is freed.
    private mutating func reserve(_ count: Int) {
        guard bytes.count + count > bytes.capacity else { return }
        var grown: [UInt8] = []
        grown.reserveCapacity(max(bytes.capacity * 2, bytes.count + count))
        grown.append(contentsOf: bytes)
        Self.zero(&bytes)
        bytes = grown
    }

    private static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
        }
    }
}
