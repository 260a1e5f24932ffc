import ClavisClient
import ClavisCore

/// Builds what `SecItemCopyMatching` and `SecItemAdd` put in `result`, as Apple's data-protection keychain does.
///
/// | return keys | limit one | limit above one |
/// |---|---|---|
/// | none | nothing (status only) | nothing |
/// | `kSecReturnData` | `Data` | `[Data]` |
/// | `kSecReturnPersistentRef` | `Data` | `[Data]` |
/// | `kSecReturnAttributes` | `[String: Any]` | `[[String: Any]]` |
/// | `kSecReturnRef` alone | a `SecKey` or `SecCertificate`; `nil` for passwords (no ref object) | an array; `[]` |
/// | two or more | `[String: Any]`: attributes if asked, `v_Data`, `v_PersistentRef`, `v_Ref` (not passwords) | `[[String: Any]]` |
///
/// An array comes back whenever the limit is above one, even for a single match. Apple's client drops the items
/// whose result is empty, so a reference asked for alone leaves `nil` or an empty array, with `errSecSuccess`.
enum ResultShape {
    /// The result object for `items`, or `nil` when no return key was set or only `kSecReturnRef`.
    /// A token-held key's reference uses the key with `authentication`.
    static func object(
        for items: [Item], returns: ReturnKinds, limit: MatchLimit,
        authentication: CallAuthentication = CallAuthentication()
    ) -> CFTypeRef? {
        guard !returns.isEmpty else { return nil }
        let values =
            returns == .reference
            ? items.compactMap { reference(for: $0, authentication: authentication) }
            : items.map { value(for: $0, returns: returns, authentication: authentication) }
        let many = limit.maximum.map { $0 > 1 } ?? true
        if many { return NSArray(array: values) }
        return values.first
    }

    /// One item's entry.
    static func value(
        for item: Item, returns: ReturnKinds, authentication: CallAuthentication = CallAuthentication()
    ) -> AnyObject {
        switch returns {
        case .data: return secretObject(of: item)
        case .persistentReference: return NSData(data: Data(item.persistentReference.bytes))
        case .attributes: return NSDictionary(dictionary: attributes(of: item))
        default:
            var dictionary: [String: Any] = returns.contains(.attributes) ? attributes(of: item) : [:]
            if returns.contains(.data) { dictionary[kSecValueData as String] = secretData(of: item) }
            if returns.contains(.persistentReference) {
                dictionary[kSecValuePersistentRef as String] = Data(item.persistentReference.bytes)
            }
            if returns.contains(.reference), let reference = reference(for: item, authentication: authentication) {
                dictionary[kSecValueRef as String] = reference
            }
            return NSDictionary(dictionary: dictionary)
        }
    }

    /// The object `kSecReturnRef` answers for an item: a `SecKey` for a key (a token-held one uses the key with
    /// `authentication`), a `SecCertificate` for a certificate, nil for a password.
    static func reference(for item: Item, authentication: CallAuthentication = CallAuthentication()) -> AnyObject? {
        switch item.itemClass {
        case .key: KeyItem.reference(for: item, authentication: authentication)
        case .certificate: CertificateItem.reference(for: item)
        default: nil
        }
    }

    /// The item's attributes keyed by Apple's codes, with its class; `accc` comes back as a `SecAccessControl`.
    static func attributes(of item: Item) -> [String: Any] {
        var dictionary: [String: Any] = [kSecClass as String: item.itemClass.rawValue]
        for (key, value) in item.attributes {
            if key == .accessControl, case .data(let bytes) = value,
                let policy = try? AccessControl(encoded: bytes)
            {
                dictionary[key.rawValue] = SecAccessControl(policy: policy)
                continue
            }
            dictionary[key.rawValue] = object(for: value)
        }
        return dictionary
    }

    /// A Foundation value for an attribute value.
    static func object(for value: AttributeValue) -> Any {
        switch value {
        case .string(let string): string
        case .data(let data): data
        case .number(let number): Int(clamping: number)
        case .bool(let bool): bool
        case .date(let date): date
        }
    }

    private static func secretData(of item: Item) -> Data {
        item.secret?.withUnsafeBytes { Data($0) } ?? Data()
    }

    /// The secret as the object a caller receives, copied once (through `Data` it would be copied twice).
    private static func secretObject(of item: Item) -> NSData {
        item.secret?.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) } ?? NSData()
    }
}
