import ClavisCore
import FoundationEssentials

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
        var key: AttributeKey
        var type: ValueType
    }

    /// `kSecClassGenericPassword` or `kSecClassInternetPassword`.
    var itemClass: ItemClass { self == .generic ? .genericPassword : .internetPassword }

    /// The word in the verbs: `generic` or `internet`.
    var word: String { self == .generic ? "generic" : "internet" }

    /// "a generic" or "an internet", for help texts.
    var article: String { self == .generic ? "a generic" : "an internet" }

    /// The attribute options, after macOS `security`.
    var attributeOptions: [AttributeOption] {
        func option(
            _ flag: String, _ key: AttributeKey, _ valueName: String, _ help: String, _ type: ValueType = .string
        ) -> AttributeOption {
            // The schema says which numbers are four-character codes (creator, type).
            let isCode = AttributeSchema.definition(of: key)?.isFourCharacterCode == true
            return AttributeOption(
                spec: OptionSpec(flag: flag, valueName: valueName, help: help), key: key,
                type: isCode ? .fourCharacterCode : type)
        }
        let common = [
            option("-a", .account, "account", "account name"),
            option("-c", .creator, "creator", "creator (a four-character code)"),
            option("-C", .type, "type", "item type (a four-character code)"),
            option("-D", .itemDescription, "kind", "kind description"),
            option("-j", .comment, "comment", "comment"),
            option("-l", .label, "label", "label (shown by dump-keychain)"),
        ]
        switch self {
        case .generic:
            return common + [
                option("-s", .service, "service", "service name"),
                option("-G", .generic, "value", "generic attribute value", .data),
            ]
        case .internet:
            return common + [
                option("-s", .server, "server", "server name"),
                option("-d", .securityDomain, "domain", "security domain"),
                option("-r", .protocol, "protocol", "protocol (a four-character code such as htps)"),
                option("-P", .port, "port", "port number", .number),
                option("-p", .path, "path", "path"),
                option("-t", .authenticationType, "authType", "authentication type (such as dflt or form)"),
            ]
        }
    }

    /// The option naming an access group, which the caller's entitlements must hold.
    static let accessGroupOption = OptionSpec(
        flag: "--access-group", valueName: "group", help: "access group (default: the first entitled group)")

    /// The attributes named by `options`, typed as the keychain stores them, and the access group named.
    func attributes(from options: ParsedOptions) throws(UsageError) -> [AttributeKey: AttributeValue] {
        var attributes: [AttributeKey: AttributeValue] = [:]
        for option in attributeOptions {
            guard let text = options.value(option.spec.flag) else { continue }
            switch option.type {
            case .string: attributes[option.key] = .string(text)
            case .data: attributes[option.key] = .data(Data(text.utf8))
            case .number:
                guard let number = Int64(text), number >= 0 else {
                    throw UsageError(message: "\(option.spec.flag) needs a number, not '\(text)'")
                }
                attributes[option.key] = .number(number)
            case .fourCharacterCode:
                let bytes = Array(text.utf8)
                guard bytes.count == 4 else {
                    throw UsageError(message: "\(option.spec.flag) needs four characters, not '\(text)'")
                }
                attributes[option.key] = .number(Int64(bytes.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }))
            }
        }
        if let group = options.value(Self.accessGroupOption.flag) {
            attributes[.accessGroup] = .string(group)
        }
        return attributes
    }
}

extension PasswordKind {
    /// The query matching the items `attributes` describe (the access group among them searched alone, else every
    /// group the caller holds), synchronizable or not.
    func query(matching attributes: [AttributeKey: AttributeValue], limit: MatchLimit, returnsSecret: Bool = false)
        -> ItemQuery
    {
        var matched = attributes
        let group = matched.removeValue(forKey: .accessGroup)?.stringValue
        return ItemQuery(
            itemClass: itemClass, attributes: matched, synchronizable: .any, accessGroups: group.map { [$0] },
            limit: limit, returnsSecret: returnsSecret)
    }
}
