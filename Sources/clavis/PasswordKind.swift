import Security

/// The two password classes the item verbs work on, with the options that name their attributes.
enum PasswordKind: Sendable {
    case generic
    case internet

    /// How an option's value becomes an attribute value.
    enum ValueType: Sendable {
        case string, data, number, fourCharacterCode
    }

    /// An option that sets or matches one attribute.
    struct AttributeOption: Sendable {
        var spec: OptionSpec
        var key: String
        var type: ValueType
    }

    /// `kSecClassGenericPassword` or `kSecClassInternetPassword`.
    var itemClass: CFString { self == .generic ? kSecClassGenericPassword : kSecClassInternetPassword }

    /// The word in the verbs: `generic` or `internet`.
    var word: String { self == .generic ? "generic" : "internet" }

    /// "a generic" or "an internet", for help texts.
    var article: String { self == .generic ? "a generic" : "an internet" }

    /// The attribute options, after macOS `security`.
    var attributeOptions: [AttributeOption] {
        func option(_ flag: String, _ key: CFString, _ valueName: String, _ help: String, _ type: ValueType = .string)
            -> AttributeOption
        {
            AttributeOption(
                spec: OptionSpec(flag: flag, valueName: valueName, help: help), key: key as String, type: type)
        }
        let common = [
            option("-a", kSecAttrAccount, "account", "account name"),
            option("-c", kSecAttrCreator, "creator", "creator (a four-character code)", .fourCharacterCode),
            option("-C", kSecAttrType, "type", "item type (a four-character code)", .fourCharacterCode),
            option("-D", kSecAttrDescription, "kind", "kind description"),
            option("-j", kSecAttrComment, "comment", "comment"),
            option("-l", kSecAttrLabel, "label", "label (shown by dump-keychain)"),
        ]
        switch self {
        case .generic:
            return common + [
                option("-s", kSecAttrService, "service", "service name"),
                option("-G", kSecAttrGeneric, "value", "generic attribute value", .data),
            ]
        case .internet:
            return common + [
                option("-s", kSecAttrServer, "server", "server name"),
                option("-d", kSecAttrSecurityDomain, "domain", "security domain"),
                option("-r", kSecAttrProtocol, "protocol", "protocol (a four-character code such as htps)"),
                option("-P", kSecAttrPort, "port", "port number", .number),
                option("-p", kSecAttrPath, "path", "path"),
                option("-t", kSecAttrAuthenticationType, "authType", "authentication type (such as dflt or form)"),
            ]
        }
    }

    /// The option naming an access group, which the caller's entitlements must hold.
    static let accessGroupOption = OptionSpec(
        flag: "--access-group", valueName: "group", help: "access group (default: the first entitled group)")

    /// The attributes named by `options`, typed for a keychain dictionary.
    func attributes(from options: ParsedOptions) throws(UsageError) -> [String: Any] {
        var attributes: [String: Any] = [:]
        for option in attributeOptions {
            guard let text = options.value(option.spec.flag) else { continue }
            switch option.type {
            case .string: attributes[option.key] = text
            case .data: attributes[option.key] = Data(text.utf8)
            case .number:
                guard let number = Int(text), number >= 0 else {
                    throw UsageError(message: "\(option.spec.flag) needs a number, not '\(text)'")
                }
                attributes[option.key] = number
            case .fourCharacterCode:
                let bytes = Array(text.utf8)
                guard bytes.count == 4 else {
                    throw UsageError(message: "\(option.spec.flag) needs four characters, not '\(text)'")
                }
                attributes[option.key] = Int(bytes.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) })
            }
        }
        if let group = options.value(Self.accessGroupOption.flag) {
            attributes[kSecAttrAccessGroup as String] = group
        }
        return attributes
    }

    /// The whole primary key of the item `attributes` describe: what `-U` matches the existing item by.
    ///
    /// Every primary-key attribute is named, an absent one as "" or 0 (as the uniqueness rule counts it), with the
    /// item's access group and `sync` false, so the update can only reach the one item the add collided with.
    func primaryKey(of attributes: [String: Any], accessGroup: String) -> [String: Any] {
        let strings: [CFString] =
            self == .generic
            ? [kSecAttrAccount, kSecAttrService]
            : [
                kSecAttrAccount, kSecAttrSecurityDomain, kSecAttrServer, kSecAttrProtocol, kSecAttrAuthenticationType,
                kSecAttrPath,
            ]
        var key: [String: Any] = [
            kSecAttrAccessGroup as String: accessGroup, kSecAttrSynchronizable as String: false,
        ]
        for name in strings { key[name as String] = attributes[name as String] ?? "" }
        if self == .internet { key[kSecAttrPort as String] = attributes[kSecAttrPort as String] ?? 0 }
        return key
    }
}
