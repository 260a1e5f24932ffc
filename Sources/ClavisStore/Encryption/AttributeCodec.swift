import ClavisCore
import FoundationEssentials

/// A compact, deterministic binary form of an item's attributes: the plaintext that gets sealed, and the input to
/// its keyed digests.
///
/// Layout: a version byte, then per attribute (sorted by code) the code's length and UTF-8 bytes, a kind tag and
/// the value (strings and data with a 32-bit length; numbers, booleans and dates in 8 or 1 bytes, big-endian).
enum AttributeCodec {
    private static let version: UInt8 = 1

    static func encode(_ attributes: [AttributeKey: AttributeValue]) -> [UInt8] {
        var bytes: [UInt8] = [version]
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            let code = Array(key.rawValue.utf8)
            bytes.append(UInt8(code.count))
            bytes += code
            append(value, to: &bytes)
        }
        return bytes
    }

    /// Appends one value with its kind tag: also the canonical form a digest is computed over.
    static func append(_ value: AttributeValue, to bytes: inout [UInt8]) {
        switch value {
        case .string(let string):
            bytes.append(1)
            appendLengthPrefixed(Array(string.utf8), to: &bytes)
        case .data(let data):
            bytes.append(2)
            appendLengthPrefixed(Array(data), to: &bytes)
        case .number(let number):
            bytes.append(3)
            appendBigEndian(UInt64(bitPattern: number), to: &bytes)
        case .bool(let flag):
            bytes.append(4)
            bytes.append(flag ? 1 : 0)
        case .date(let date):
            bytes.append(5)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        }
    }

    static func decode(_ bytes: [UInt8]) throws(KeychainError) -> [AttributeKey: AttributeValue] {
        var reader = Reader(bytes: bytes)
        guard try reader.byte() == version else {
            throw KeychainError(.decode, "item attributes use an unknown encoding")
        }
        var attributes: [AttributeKey: AttributeValue] = [:]
        while !reader.isAtEnd {
            let codeLength = Int(try reader.byte())
            let key = AttributeKey(rawValue: String(decoding: try reader.take(codeLength), as: UTF8.self))
            let value: AttributeValue
            switch try reader.byte() {
            case 1: value = .string(String(decoding: try reader.take(Int(try reader.uint32())), as: UTF8.self))
            case 2: value = .data(Data(try reader.take(Int(try reader.uint32()))))
            case 3: value = .number(Int64(bitPattern: try reader.uint64()))
            case 4: value = .bool(try reader.byte() != 0)
            case 5: value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.uint64())))
            default: throw KeychainError(.decode, "item attribute '\(key)' has an unknown kind")
            }
            attributes[key] = value
        }
        return attributes
    }

    private static func appendLengthPrefixed(_ payload: [UInt8], to bytes: inout [UInt8]) {
        appendBigEndian(UInt32(payload.count), to: &bytes)
        bytes += payload
    }

    private static func appendBigEndian<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) throws(KeychainError) -> ArraySlice<UInt8> {
            guard count >= 0, bytes.count - offset >= count else {
                throw KeychainError(.decode, "item attributes are truncated")
            }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func byte() throws(KeychainError) -> UInt8 { try take(1).first! }

        mutating func uint32() throws(KeychainError) -> UInt32 {
            try take(4).reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func uint64() throws(KeychainError) -> UInt64 {
            try take(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}
