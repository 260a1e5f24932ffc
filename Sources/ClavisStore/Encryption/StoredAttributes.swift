internal import ClavisCore
internal import FoundationEssentials

/// The compact form an item's attributes are sealed in: `AttributeCodec`'s values and kind tags, with a one-byte
/// code for each attribute Apple's item classes define and variable-length numbers, so an item's attribute box is
/// about half the size (a generic password's eight attributes take 3 bytes of framing each instead of 10).
///
/// Layout: version byte 3, then per attribute (sorted by code) its code (`AttributeDefinition.compactCode`, or 0, a
/// length byte and the UTF-8 bytes), the kind tag (as `AttributeCodec`) and the value: strings and data with a LEB128
/// length, numbers as zigzag LEB128, booleans in one byte, dates as the 8 big-endian bytes of their interval since
/// 2001. Three attributes every item has are left out when the row says them already (16 bytes): `pdmn` and `sync`,
/// which the row's `protection` and `sync` columns hold and its authenticated data binds (`RowBinding`, format 2), and
/// `mdat` while it equals `cdat` (an item never modified); `decode` restores them.
///
/// Boxes sealed before hold version 2 (the same, every attribute written) or `AttributeCodec`'s form (version byte
/// 1), which `decode` still reads.
enum StoredAttributes {
    private static let version: UInt8 = 3
    /// The version that wrote every attribute (format-1 rows, schema versions 2 to 5).
    private static let everyAttributeVersion: UInt8 = 2

    /// The attributes an item row holds in clear columns, which the compact form leaves to them.
    struct RowColumns {
        var protection: ProtectionClass
        var isSynchronizable: Bool
    }

    /// The attribute each one-byte code names (`AttributeDefinition.compactCode`), by code; 0 and unassigned codes
    /// name none.
    private static let compactKeys: [AttributeKey?] = {
        var keys = [AttributeKey?](repeating: nil, count: 256)
        for row in AttributeSchema.rows {
            if let code = row.compactCode { keys[Int(code)] = row.key }
        }
        return keys
    }()
    /// The one-byte code of each attribute that has one.
    private static let compactCodes = Dictionary(
        uniqueKeysWithValues: AttributeSchema.rows.compactMap { row in row.compactCode.map { (row.key, $0) } })

    /// The compact form of `attributes`, sealed in a row whose clear columns are `row`.
    static func encode(_ attributes: [AttributeKey: AttributeValue], row: RowColumns) -> [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(16 * attributes.count)
        let creation = attributes[.creationDate]
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            if restored(key, value, row: row, creation: creation) { continue }
            if let number = compactCodes[key] {
                bytes.append(number)
            } else {
                let code = Array(key.rawValue.utf8)
                bytes += [0, UInt8(code.count)] + code
            }
            switch value {
            case .string(let string):
                bytes.append(1)
                appendLengthPrefixed(Array(string.utf8), to: &bytes)
            case .data(let data):
                bytes.append(2)
                appendLengthPrefixed(Array(data), to: &bytes)
            case .number(let number):
                bytes.append(3)
                appendVarint(UInt64(bitPattern: (number << 1) ^ (number >> 63)), to: &bytes)
            case .bool(let flag):
                bytes += [4, flag ? 1 : 0]
            case .date(let date):
                bytes.append(5)
                withUnsafeBytes(of: date.timeIntervalSinceReferenceDate.bitPattern.bigEndian) { bytes += $0 }
            }
        }
        return bytes
    }

    /// Whether `decode` restores `key`'s `value` from the row's columns or `cdat` (so `encode` leaves it out).
    private static func restored(
        _ key: AttributeKey, _ value: AttributeValue, row: RowColumns, creation: AttributeValue?
    ) -> Bool {
        switch key {
        case .accessible: value == .string(row.protection.rawValue)
        case .synchronizable: value == .bool(row.isSynchronizable)
        case .modificationDate: value == creation
        default: false
        }
    }

    /// Decodes what `encode` wrote for a row whose clear columns are `row` (version 3), what version 2 wrote, or
    /// `AttributeCodec`'s form.
    static func decode(_ bytes: [UInt8], row: RowColumns) throws(KeychainError) -> [AttributeKey: AttributeValue] {
        guard let written = bytes.first, written == version || written == everyAttributeVersion else {
            return try AttributeCodec.decode(bytes)
        }
        var reader = ByteReader(bytes, offset: 1, subject: "item attributes")
        // Room for an item's usual attributes up front: growing rehashes every key (attribute keys are strings).
        var attributes: [AttributeKey: AttributeValue] = Dictionary(minimumCapacity: 24)
        while !reader.isAtEnd {
            let number = Int(try reader.byte())
            let key: AttributeKey
            if number == 0 {
                key = AttributeKey(rawValue: String(decoding: try reader.take(Int(try reader.byte())), as: UTF8.self))
            } else {
                guard let known = compactKeys[number] else { throw reader.malformed("an unknown attribute code") }
                key = known
            }
            let value: AttributeValue
            switch try reader.byte() {
            case 1: value = .string(String(decoding: try lengthPrefixed(&reader), as: UTF8.self))
            case 2: value = .data(Data(try lengthPrefixed(&reader)))
            case 3:
                let zigzag = try varint(&reader)
                value = .number(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            case 4: value = .bool(try reader.bool())
            case 5: value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.uint64())))
            default: throw KeychainError(.decode, "item attribute '\(key)' has an unknown kind")
            }
            attributes[key] = value
        }
        if written == version {
            // Every item has these three: the box holds one only where it differs from what the row says.
            attributes[.accessible] = attributes[.accessible] ?? .string(row.protection.rawValue)
            attributes[.synchronizable] = attributes[.synchronizable] ?? .bool(row.isSynchronizable)
            attributes[.modificationDate] = attributes[.modificationDate] ?? attributes[.creationDate]
        }
        return attributes
    }

    private static func appendLengthPrefixed(_ payload: [UInt8], to bytes: inout [UInt8]) {
        appendVarint(UInt64(payload.count), to: &bytes)
        bytes += payload
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private static func lengthPrefixed(_ reader: inout ByteReader) throws(KeychainError) -> ArraySlice<UInt8> {
        let count = try varint(&reader)
        guard count <= UInt64(Int32.max) else { throw reader.malformed("an attribute longer than its box") }
        return try reader.take(Int(count))
    }

    private static func varint(_ reader: inout ByteReader) throws(KeychainError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try reader.byte()
            guard shift < 64 else { throw reader.malformed("a number longer than 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }
}
