#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Builds a byte string: big-endian integers, length-prefixed byte runs and strings.
///
/// Used for the forms the keychain writes: sealed attributes, digests' input, the daemon's messages. A writer
/// that held a secret is wiped (`wipe()`) once its bytes are sent or sealed.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// An empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Appends one byte.
    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Appends a boolean as one byte, 1 or 0.
    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Appends a 32-bit big-endian integer.
    public mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }

    /// Appends a 64-bit big-endian integer.
    public mutating func uint64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }

    /// Appends a signed 64-bit integer, big-endian.
    public mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }

    /// Appends raw bytes without a length.
    public mutating func raw(_ payload: some Collection<UInt8>) { bytes += payload }

    /// Appends a 32-bit length, then the bytes.
    public mutating func lengthPrefixed(_ payload: some Collection<UInt8>) {
        uint32(UInt32(payload.count))
        bytes += payload
    }

    /// Appends a string's UTF-8 bytes with a 32-bit length.
    public mutating func string(_ value: String) { lengthPrefixed(Array(value.utf8)) }

    /// Appends a secret with a 32-bit length.
    public mutating func secret(_ value: SecureBytes) {
        uint32(UInt32(value.count))
        value.withUnsafeBytes { bytes += $0 }
    }

    /// Appends a presence byte, then the value when there is one.
    public mutating func optional<Value>(_ value: Value?, _ write: (inout ByteWriter, Value) -> Void) {
        bool(value != nil)
        if let value { write(&self, value) }
    }

    /// Zeroes the bytes written (they may hold a secret) and empties the writer.
    public mutating func wipe() {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
        }
        bytes.removeAll()
    }
}
