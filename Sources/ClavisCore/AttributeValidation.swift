extension ItemClass {
    /// Checks that every attribute belongs to this class and has the right kind of value.
    ///
    /// - Throws: `noSuchAttribute` for an attribute the class lacks, `param` for a value of the wrong kind or an
    ///   unknown protection class, `dataTooLarge` for a value past `KeychainLimits.attributeValueBytes` (a Secret
    ///   Service attribute past `secretServiceAttributeBytes`, or all of them past `secretServiceAttributesBytes`).
    public func validate(_ attributes: [AttributeKey: AttributeValue]) throws(KeychainError) {
        _ = try check(attributes)
    }

    /// `validate`, in one pass over `attributes` with one lookup in the schema each; true when a boolean attribute
    /// was given as a number (which `normalized` turns into a boolean).
    private func check(_ attributes: [AttributeKey: AttributeValue]) throws(KeychainError) -> Bool {
        let kinds = attributeKinds
        var valid = true
        var numbersForBooleans = false
        var protection: AttributeValue?
        var secretServiceAttributes: AttributeValue?
        for (key, value) in attributes {
            guard let expected = kinds[key], expected.admits(value.kind),
                value.byteCount <= KeychainLimits.valueBytes(of: key)
            else {
                valid = false
                break
            }
            if expected == .bool && value.kind == .number { numbersForBooleans = true }
            if key == .accessible { protection = value }
            if key == .secretServiceAttributes { secretServiceAttributes = value }
        }
        // Only a failure sorts the keys, so that the one reported is the first by code.
        for (key, value) in valid ? [] : attributes.sorted(by: { $0.key < $1.key }) {
            guard let expected = kinds[key] else {
                throw KeychainError(.noSuchAttribute, "class \(rawValue) has no attribute '\(key)'")
            }
            guard expected.admits(value.kind) else {
                throw KeychainError(
                    .param, "attribute '\(key)' takes a \(expected.rawValue), not a \(value.kind.rawValue)")
            }
            if key == .secretServiceAttributes, value.byteCount > KeychainLimits.secretServiceAttributesBytes {
                throw KeychainError(
                    .dataTooLarge,
                    "the Secret Service attributes are larger than \(KeychainLimits.secretServiceAttributesBytes) bytes"
                        + " together")
            }
            if value.byteCount > KeychainLimits.valueBytes(of: key) {
                throw KeychainError(
                    .dataTooLarge, "attribute '\(key)' is larger than \(KeychainLimits.attributeValueBytes) bytes")
            }
        }
        if let protection, ProtectionClass(rawValue: protection.stringValue ?? "") == nil {
            throw KeychainError(.param, "attribute 'pdmn' is not a protection class")
        }
        if case .data(let encoded) = secretServiceAttributes {
            guard let decoded = SecretServiceAttributes(encoded: encoded) else {
                throw KeychainError(.param, "attribute 'ssat' is not an encoded set of Secret Service attributes")
            }
            // Each attribute is limited on its own, and named as its caller named it.
            for (name, value) in decoded.pairs.sorted(by: { $0.key < $1.key })
            where name.utf8.count + value.utf8.count > KeychainLimits.secretServiceAttributeBytes {
                throw KeychainError(
                    .dataTooLarge,
                    "the Secret Service attribute '\(name.prefix(64))' is larger than"
                        + " \(KeychainLimits.secretServiceAttributeBytes) bytes")
            }
        }
        return numbersForBooleans
    }
}

/// The documented size limits of the store.
public enum KeychainLimits {
    /// The largest secret (`kSecValueData`) an item may hold: 16 MiB.
    public static let secretBytes = 16 * 1024 * 1024
    /// The longest keychain passcode: 1 KiB (what a terminal prompt accepts).
    public static let passcodeBytes = 1024
    /// The largest single attribute value: 64 KiB.
    public static let attributeValueBytes = 64 * 1024
    /// The largest Secret Service attribute (its name and value together): 1 MiB (gnome-keyring stores 65,537 bytes
    /// and more), each counted on its own.
    public static let secretServiceAttributeBytes = 1024 * 1024
    /// The largest set of an item's Secret Service attributes together (`ssat`): 16 MiB, as a secret.
    public static let secretServiceAttributesBytes = 16 * 1024 * 1024

    /// The largest value of attribute `key`.
    static func valueBytes(of key: AttributeKey) -> Int {
        key == .secretServiceAttributes ? secretServiceAttributesBytes : attributeValueBytes
    }
}

extension AttributeValue {
    /// The size of the value's payload in bytes.
    var byteCount: Int {
        switch self {
        case .string(let value): value.utf8.count
        case .data(let value): value.count
        case .number, .bool, .date: 8
        }
    }
}

extension ItemClass {
    /// Validates `attributes` and returns them in canonical form: booleans given as numbers become booleans.
    public func normalized(_ attributes: [AttributeKey: AttributeValue]) throws(KeychainError) -> [AttributeKey:
        AttributeValue]
    {
        guard try check(attributes) else { return attributes }
        let kinds = attributeKinds
        var normalized = attributes
        for (key, value) in attributes where kinds[key] == .bool && value.kind == .number {
            normalized[key] = .bool(value.boolValue ?? false)
        }
        return normalized
    }
}
