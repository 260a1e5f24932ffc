import FoundationEssentials

/// A compact, deterministic binary form of an item's attributes: the plaintext that gets sealed, the input to its
/// keyed digests, and how attributes travel to the daemon.
///
/// Layout: a version byte, then per attribute (sorted by code) the code's length and UTF-8 bytes, a kind tag and
/// the value (strings and data with a 32-bit length; numbers, booleans and dates in 8 or 1 bytes, big-endian).
public enum AttributeCodec {
    private static let version: UInt8 = 1

    /// The encoded form of `attributes` (the format sealed items are stored in: never change it).
    public static func encode(_ attributes: [AttributeKey: AttributeValue]) -> [UInt8] {
        var writer = ByteWriter()
        encode(attributes, to: &writer)
        return writer.bytes
    }

    /// Appends the encoded form of `attributes` to `writer`, the bytes `encode` returns.
    public static func encode(_ attributes: [AttributeKey: AttributeValue], to writer: inout ByteWriter) {
        writer.byte(version)
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            var code = key.rawValue
            code.withUTF8 { utf8 in
                writer.byte(UInt8(utf8.count))
                writer.raw(UnsafeRawBufferPointer(utf8))
            }
            append(value, to: &writer)
        }
    }

    /// Appends one value with its kind tag: also the canonical form a digest is computed over.
    public static func append(_ value: AttributeValue, to writer: inout ByteWriter) {
        switch value {
        case .string(let string):
            writer.byte(1)
            writer.string(string)
        case .data(let data):
            writer.byte(2)
            writer.lengthPrefixed(data)
        case .number(let number):
            writer.byte(3)
            writer.int64(number)
        case .bool(let flag):
            writer.byte(4)
            writer.bool(flag)
        case .date(let date):
            writer.byte(5)
            writer.uint64(date.timeIntervalSinceReferenceDate.bitPattern)
        }
    }

    /// Decodes what `encode` wrote.
    public static func decode(_ bytes: [UInt8]) throws(KeychainError) -> [AttributeKey: AttributeValue] {
        var reader = ByteReader(bytes, subject: "item attributes")
        guard try reader.byte() == version else {
            throw KeychainError(.decode, "item attributes use an unknown encoding")
        }
        // Room for an item's usual attributes up front: growing rehashes every key (attribute keys are strings).
        var attributes: [AttributeKey: AttributeValue] = Dictionary(minimumCapacity: 24)
        while !reader.isAtEnd {
            let codeLength = Int(try reader.byte())
            let key = AttributeKey(rawValue: String(decoding: try reader.take(codeLength), as: UTF8.self))
            let value: AttributeValue
            switch try reader.byte() {
            case 1: value = .string(try reader.string())
            case 2: value = .data(try reader.data())
            case 3: value = .number(try reader.int64())
            case 4: value = .bool(try reader.bool())
            case 5: value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.uint64())))
            default: throw KeychainError(.decode, "item attribute '\(key)' has an unknown kind")
            }
            attributes[key] = value
        }
        return attributes
    }
}
