import Security

/// Prints items as macOS `security` does, or as JSON for scripts.
struct ItemFormatter {
    /// The path shown on the `keychain:` line.
    var keychainPath: String
    /// True for `--json`.
    var json: Bool

    /// The text block of one item, without its secret.
    func block(_ item: [String: Any]) -> String {
        var lines = [
            "keychain: \"\(keychainPath)\"", "version: 512",
            "class: \"\(item[kSecClass as String] as? String ?? "?")\"", "attributes:",
        ]
        let skipped: Set<String> = [kSecClass as String, kSecValueData as String, kSecValuePersistentRef as String]
        for key in item.keys.sorted() where !skipped.contains(key) {
            let value = item[key]!
            let name = key == kSecAttrLabel as String ? "0x00000007 " : "\"\(key)\""
            let fourCharacterKeys = [kSecAttrCreator as String, kSecAttrType as String]
            if fourCharacterKeys.contains(key), let number = value as? NSNumber {
                lines.append("    \(name)<uint32>=\(Self.fourCharacterCode(number.uint32Value))")
            } else {
                lines.append("    \(name)\(Self.typed(value))")
            }
        }
        if let code = item[kSecAttrAccessible as String] as? String {
            lines.append("protection: \(AccessControlText.protection(code))")
        }
        if let access = item[kSecAttrAccessControl as String] as? SecAccessControl {
            lines.append("access control: \(AccessControlText.names(access).joined(separator: ","))")
        }
        return lines.joined(separator: "\n")
    }

    /// The `password:` line of `-g`.
    static func passwordLine(_ secret: Data) -> String {
        "password: " + quotedValue(secret)
    }

    /// Text from an item (a label, an account) made safe for a terminal: quotes, backslashes and control bytes
    /// escaped as `security` escapes them.
    static func printable(_ text: String) -> String {
        escaped(Data(text.utf8))
    }

    /// A secret as `-w` prints it, as `security` does: the text when every byte is printable ASCII (0x20…0x7E),
    /// else its bytes in lowercase hexadecimal (which `add-generic-password -X` takes back), so no escape sequence,
    /// control byte or line break of a stored secret ever reaches the terminal.
    static func passwordOnly(_ secret: Data) -> String {
        if secret.allSatisfy({ (0x20...0x7E).contains($0) }) { return String(decoding: secret, as: UTF8.self) }
        return hex(secret).lowercased()
    }

    /// A secret as `security` shows it: quoted when printable, else hexadecimal as well.
    static func quotedValue(_ secret: Data) -> String {
        if let text = String(data: secret, encoding: .utf8),
            text.allSatisfy({ !$0.isNewline && $0.isASCII && !($0.asciiValue! < 0x20) })
        {
            return "\"\(text)\""
        }
        return "0x\(hex(secret))  \"\(escaped(secret))\""
    }

    /// A JSON object for one item; the secret only when `secret` is given.
    static func jsonObject(_ item: [String: Any], secret: Data?) -> [String: Any] {
        var attributes: [String: Any] = [:]
        for (key, value) in item where key != kSecClass as String && !key.hasPrefix("v_") {
            attributes[key] = jsonValue(value)
        }
        var object: [String: Any] = ["class": item[kSecClass as String] as? String ?? "?", "attributes": attributes]
        if let code = item[kSecAttrAccessible as String] as? String { object["protection"] = code }
        if let access = item[kSecAttrAccessControl as String] as? SecAccessControl {
            object["accessControl"] = AccessControlText.names(access)
        }
        // The item's kSecValuePersistentRef, for scripts and programs that refer to it later.
        if let reference = item[kSecValuePersistentRef as String] as? Data {
            object["persistentReference"] = reference.base64EncodedString()
        }
        if let secret {
            if let text = String(data: secret, encoding: .utf8) {
                object["password"] = text
            } else {
                object["passwordBase64"] = secret.base64EncodedString()
            }
        }
        return object
    }

    /// Serialises a JSON value with sorted keys.
    static func jsonText(_ value: Any) -> String {
        guard JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted])
        else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func jsonValue(_ value: Any) -> Any {
        switch value {
        case let string as String: string
        case let data as Data: data.base64EncodedString()
        case let date as Date: ISO8601DateFormatter().string(from: date)
        case let number as NSNumber: number
        case let access as SecAccessControl: String(describing: access)
        default: String(describing: value)
        }
    }

    private static func typed(_ value: Any) -> String {
        switch value {
        case let string as String: return "<blob>=\"\(escaped(Data(string.utf8)))\""
        case let data as Data: return "<blob>=0x\(hex(data))  \"\(escaped(data))\""
        case let date as Date:
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMddHHmmss'Z'"
            let text = formatter.string(from: date)
            return "<timedate>=0x\(hex(Data(text.utf8) + Data([0])))  \"\(text)\\000\""
        case let number as NSNumber: return "<uint32>=\(number.int64Value)"
        case let access as SecAccessControl: return "<blob>=\(access)"
        default: return "<blob>=<NULL>"
        }
    }

    /// A creator or type code as `security` prints it: four printable characters in quotes, else hexadecimal.
    static func fourCharacterCode(_ code: UInt32) -> String {
        let bytes = withUnsafeBytes(of: code.bigEndian) { Array($0) }
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
            let digits = String(code, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
        }
        return "\"" + escaped(Data(bytes)) + "\""
    }

    static func hex(_ data: Data) -> String {
        data.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    private static func escaped(_ data: Data) -> String {
        var text = ""
        for byte in data {
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
