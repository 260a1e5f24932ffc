import ClavisCore

/// The `attributesToUpdate` dictionary of `SecItemUpdate`, read into typed changes for items of one class.
struct AttributeChanges {
    /// Attributes to set, with `pdmn` and `accc` when the protection changes.
    var attributes: [AttributeKey: AttributeValue] = [:]
    /// A new `kSecAttrAccessGroup`, which the caller must hold.
    var accessGroup: String?
    /// A new `kSecAttrSynchronizable`.
    var synchronizable: Bool?
    /// A new `kSecValueData`.
    var secret: Data?
    /// An `LAContext` given as `kSecUseAuthenticationContext` among the changes, which some callers do: it
    /// authenticates the update as if the query had carried it.
    var authenticationContext: (any _ClavisAuthenticationContext)?

    /// Reads `dictionary` as changes to items of `itemClass`.
    ///
    /// - Throws: `param` for a different class, search or return keys, or a value of the wrong type;
    ///   `noSuchAttr` for an attribute the class lacks; `dataTooLarge` for oversized values.
    /// The attributes the keychain derives from a key's or a certificate's bytes: an update cannot set them, nor
    /// replace the bytes they were derived from (the item would name another key, or none).
    static let derivedAttributes: [ItemClass: Set<AttributeKey>] = [
        .key: [.keyClass, .applicationLabel, .keyType, .keySizeInBits, .effectiveKeySize],
        .certificate: [.certificateType, .certificateEncoding, .subject, .issuer, .serialNumber, .publicKeyHash],
    ]

    private static func refuseDerivedChanges(
        _ attributes: [AttributeKey: AttributeValue], secret: Data?, itemClass: ItemClass
    ) throws(KeychainError) {
        guard let derived = derivedAttributes[itemClass] else { return }
        if secret != nil {
            throw KeychainError(.param, "the data of a \(itemClass.rawValue) item cannot be changed: add a new item")
        }
        if let key = attributes.keys.sorted().first(where: derived.contains) {
            throw KeychainError(.param, "attribute '\(key)' is derived from the item's data and cannot be changed")
        }
    }

    init(_ dictionary: NSDictionary, itemClass: ItemClass) throws(KeychainError) {
        guard dictionary.count <= ItemRequest.maximumEntries else {
            throw KeychainError(.param, "the dictionary has more than \(ItemRequest.maximumEntries) entries")
        }
        var changes = try QueryDictionary(dictionary)
        if let code = try changes.takeString(.itemClass), code != itemClass.rawValue {
            throw KeychainError(.param, "attributesToUpdate cannot change the class")
        }
        for name in changes.keys
        where name.hasPrefix("r_") || name.hasPrefix("m_") || name.hasPrefix("v_Ref")
            || name == kSecValuePersistentRef as String
        {
            throw KeychainError(.param, "'\(name)' cannot be in attributesToUpdate")
        }
        if let data = try changes.takeData(.valueData) {
            guard data.count <= KeychainLimits.secretBytes else {
                throw KeychainError(.dataTooLarge, "kSecValueData is larger than \(KeychainLimits.secretBytes) bytes")
            }
            secret = data
        }
        authenticationContext = try AuthenticationOptions.takeContext(&changes)
        accessGroup = try changes.takeString(.accessGroup)
        if let value = changes.take(.synchronizable) {
            synchronizable = try ValueDecoding.bool(value, key: RequestKey.synchronizable.name)
        }
        let (accessControl, protection) = try ItemRequest.protection(&changes)
        _ = try changes.takeBool(.dataProtectionKeychain)
        // No certificate or identity is stored yet, so their own attributes change nothing.
        guard itemClass.isStorable else { return }
        let keyCodes = itemClass == .key ? try KeyItem.takeCodes(&changes) : [:]
        attributes = try changes.takeAttributes(of: itemClass, droppingDates: true)
        attributes.merge(keyCodes) { _, code in code }
        try Self.refuseDerivedChanges(attributes, secret: secret, itemClass: itemClass)
        if let protection { attributes[.accessible] = .string(protection.rawValue) }
        if let accessControl {
            try accessControl.validate(for: itemClass)
            attributes[.accessControl] = .data(accessControl.encoded)
        }
        try itemClass.validate(attributes)
    }

    /// The changes as the store takes them.
    var itemChanges: ItemChanges {
        var all = attributes
        if let accessGroup { all[.accessGroup] = .string(accessGroup) }
        if let synchronizable { all[.synchronizable] = .bool(synchronizable) }
        return ItemChanges(attributes: all, secret: secret.map { SecureBytes($0) })
    }
}
