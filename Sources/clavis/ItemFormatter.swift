import ClavisClient
import ClavisCore
import FoundationEssentials

/// Prints items as macOS `security` does, or as JSON for scripts.
struct ItemFormatter {
    /// The path shown on the `keychain:` line.
    var keychainPath: String
    /// True for `--json`.
    var json: Bool

    /// The text block of one item, without its secret.
    func block(_ item: Item) -> String {
        var lines = [
            "keychain: \"\(keychainPath)\"", "version: 512", "class: \"\(item.itemClass.rawValue)\"", "attributes:",
        ]
        for (key, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
            let name = key == .label ? "0x00000007 " : "\"\(key.rawValue)\""
            if AttributeSchema.definition(of: key)?.isFourCharacterCode == true, case .number(let number) = value {
                lines.append("    \(name)<uint32>=\(Self.fourCharacterCode(UInt32(truncatingIfNeeded: number)))")
            } else if key == .accessControl, let access = Self.accessControl(of: item) {
                lines.append("    \(name)<blob>=\(access.objectDescription)")
            } else {
                lines.append("    \(name)\(Self.typed(value))")
            }
        }
        if let code = item.attributes[.accessible]?.stringValue {
            lines.append("protection: \(AccessControlText.protection(code))")
        }
        if let access = Self.accessControl(of: item) {
            lines.append("access control: \(AccessControlText.names(access.flags).joined(separator: ","))")
        }
        return lines.joined(separator: "\n")
    }

    /// The `password:` line of `-g`.
    static func passwordLine(_ secret: some Collection<UInt8>) -> String {
        "password: " + quotedValue(secret)
    }

    /// Text from an item (a label, an account) made safe for a terminal: quotes, backslashes and control bytes
    /// escaped as `security` escapes them.
    static func printable(_ text: String) -> String {
        escaped(text.utf8)
    }

    /// A secret as `-w` prints it, as `security` does: the text when every byte is printable ASCII (0x20…0x7E),
    /// else its bytes in lowercase hexadecimal (which `add-generic-password -X` takes back), so no escape sequence,
    /// control byte or line break of a stored secret ever reaches the terminal.
    static func passwordOnly(_ secret: some Collection<UInt8>) -> String {
        if secret.allSatisfy({ (0x20...0x7E).contains($0) }) { return String(decoding: secret, as: UTF8.self) }
        return hex(secret).lowercased()
    }

    /// A secret as `security` shows it: quoted when printable, else hexadecimal as well.
    static func quotedValue(_ secret: some Collection<UInt8>) -> String {
        if secret.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            return "\"\(String(decoding: secret, as: UTF8.self))\""
        }
        return "0x\(hex(secret))  \"\(escaped(secret))\""
    }

    /// A JSON object for one item, with its persistent reference; the secret only when `secret` is given.
    static func jsonObject(_ item: Item, secret: SecureBytes?) -> JSONValue {
        var attributes: [String: JSONValue] = [:]
        for (key, value) in item.attributes {
            if key == .accessControl, let access = accessControl(of: item) {
                attributes[key.rawValue] = .string(access.objectDescription)
            } else {
                attributes[key.rawValue] = jsonValue(value)
            }
        }
        var object: [String: JSONValue] = [
            "class": .string(item.itemClass.rawValue), "attributes": .object(attributes),
            // For scripts and programs that refer to the item later (kSecValuePersistentRef).
            "persistentReference": .string(Data(item.persistentReference.bytes).base64EncodedString()),
        ]
        if let code = item.attributes[.accessible]?.stringValue { object["protection"] = .string(code) }
        if let access = accessControl(of: item) {
            object["accessControl"] = .array(AccessControlText.names(access.flags).map { .string($0) })
        }
        secret?.withUnsafeBytes { bytes in
            if let text = String(validating: bytes, as: UTF8.self) {
                object["password"] = .string(text)
            } else {
                object["passwordBase64"] = .string(Data(bytes).base64EncodedString())
            }
        }
        return .object(object)
    }

    /// Serialises a JSON value with sorted keys.
    static func jsonText(_ value: JSONValue) -> String { value.text }

    /// The item's access control (`accc`), when it has one this version reads.
    private static func accessControl(of item: Item) -> AccessControl? {
        guard case .data(let bytes) = item.attributes[.accessControl] else { return nil }
        return try? AccessControl(encoded: bytes)
    }

    private static func jsonValue(_ value: AttributeValue) -> JSONValue {
        switch value {
        case .string(let string): .string(string)
        case .data(let data): .string(data.base64EncodedString())
        case .date(let date): .string(date.formatted(.iso8601))
        case .number(let number): .integer(number)
        case .bool(let bool): .bool(bool)
        }
    }

    private static func typed(_ value: AttributeValue) -> String {
        switch value {
        case .string(let string): return "<blob>=\"\(escaped(string.utf8))\""
        case .data(let data): return "<blob>=0x\(hex(data))  \"\(escaped(data))\""
        case .date(let date):
            let text = timestamp(date)
            return "<timedate>=0x\(hex(Array(text.utf8) + [0]))  \"\(text)\\000\""
        case .number(let number): return "<uint32>=\(number)"
        case .bool(let bool): return "<uint32>=\(bool ? 1 : 0)"
        }
    }

    /// A date as `security` prints it: `20261202143000Z`, in UTC.
    private static func timestamp(_ date: Date) -> String {
        let style = Date.ISO8601FormatStyle(
            dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted, timeZone: .gmt)
        return style.format(date).filter { $0 != "T" }
    }

    /// A creator or type code as `security` prints it: four printable characters in quotes, else hexadecimal.
    static func fourCharacterCode(_ code: UInt32) -> String {
        let bytes = withUnsafeBytes(of: code.bigEndian) { Array($0) }
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
            let digits = String(code, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
        }
        return "\"" + escaped(bytes) + "\""
    }

    /// Bytes in uppercase hexadecimal.
    static func hex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    private static func escaped(_ bytes: some Collection<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20..<0x7F: text.append(Character(Unicode.Scalar(byte)))
            default:
                let octal = String(byte, radix: 8)
                text += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return text
    }
}
