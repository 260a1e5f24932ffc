import ClavisCore
import Security

// Transitional: the key and certificate commands still call Security and report its bare statuses.
extension CommandContext {
    /// Reports a failed `Sec*` call by its status.
    func fail(_ call: String, _ status: OSStatus) -> Int32 {
        fail(call, KeychainError(KeychainError.Code(rawValue: status), ""))
    }
}

extension Console {
    /// Reports a failed `Sec*` call by its status.
    static func fail(_ call: String, _ status: OSStatus) -> Int32 {
        fail(call, KeychainError(KeychainError.Code(rawValue: status), ""))
    }
}

extension ItemFormatter {
    /// Serialises a Foundation property-list value (strings, numbers, booleans, data, arrays, dictionaries).
    static func jsonText(_ value: Any) -> String { jsonText(jsonValue(of: value)) }

    private static func jsonValue(of value: Any) -> JSONValue {
        switch value {
        case let string as String: .string(string)
        case let bool as Bool: .bool(bool)
        case let number as Int: .integer(number)
        case let data as Data: .string(data.base64EncodedString())
        case let array as [Any]: .array(array.map(jsonValue(of:)))
        case let object as [String: Any]: .object(object.mapValues(jsonValue(of:)))
        default: .string(String(describing: value))
        }
    }
}
