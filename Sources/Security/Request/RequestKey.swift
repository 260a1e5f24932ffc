import ClavisCore

/// A key of a query or attribute dictionary that the `Security` layer reads by name, rather than as an item
/// attribute: `QueryDictionary` tags each entry with its key once, so taking one compares small integers instead of
/// bridging the constant and comparing strings.
///
/// An entry keeps its name as well: `kSecAttrKeyType` is also `kSecAttrType` (`"type"`), which password items hold as
/// an attribute, so an entry tagged with a key it is never taken by is still read as an attribute.
enum RequestKey: Int, CaseIterable {
    case itemClass, persistentReference, valueData, valueReference, matchLimit
    case returnData, returnAttributes, returnReference, returnPersistentReference
    case accessGroup, synchronizable, accessControl, accessible
    case authenticationContext, operationPrompt, noAuthenticationUI, authenticationUI
    case dataProtectionKeychain, matchCaseInsensitive, callerName
    case keyClass, keyType

    /// The constant that names the key in a dictionary.
    var constant: CFString {
        switch self {
        case .itemClass: kSecClass
        case .persistentReference: kSecValuePersistentRef
        case .valueData: kSecValueData
        case .valueReference: kSecValueRef
        case .matchLimit: kSecMatchLimit
        case .returnData: kSecReturnData
        case .returnAttributes: kSecReturnAttributes
        case .returnReference: kSecReturnRef
        case .returnPersistentReference: kSecReturnPersistentRef
        case .accessGroup: kSecAttrAccessGroup
        case .synchronizable: kSecAttrSynchronizable
        case .accessControl: kSecAttrAccessControl
        case .accessible: kSecAttrAccessible
        case .authenticationContext: kSecUseAuthenticationContext
        case .operationPrompt: kSecUseOperationPrompt
        case .noAuthenticationUI: kSecUseNoAuthenticationUI
        case .authenticationUI: kSecUseAuthenticationUI
        case .dataProtectionKeychain: kSecUseDataProtectionKeychain
        case .matchCaseInsensitive: kSecMatchCaseInsensitive
        // Apple's keychain reads it from a query; the constant is private to Apple's frameworks.
        case .callerName: "u_CallerName"
        case .keyClass: kSecAttrKeyClass
        case .keyType: kSecAttrKeyType
        }
    }

    /// The name of the key, as a dictionary entry holds it.
    var name: String { constant as String }

    /// The key named `name`, if the `Security` layer reads one by that name.
    ///
    /// Every key's name is ASCII without a character that another one decomposes to (`K`, `;`, `` ` ``), so a name
    /// equal to one as a `String` (canonically equivalent) has the same bytes, and its first eight bytes find it.
    static func named(_ name: String) -> RequestKey? {
        let prefix = PackedName(prefixOf: name)
        for index in prefixes.indices where prefixes[index] == prefix && names[index] == name {
            return allCases[index]
        }
        return nil
    }

    /// Each key's bit in a set of keys (`QueryDictionary` keeps the set of those present); room for 64 keys.
    var bit: UInt64 { 1 << UInt64(rawValue) }

    /// Each key's name, in `allCases` order, bridged once.
    private static let names: [String] = {
        precondition(allCases.count <= UInt64.bitWidth, "a set of request keys holds \(UInt64.bitWidth) at most")
        return allCases.map(\.name)
    }()

    /// The first eight bytes of each key's name, in `allCases` order.
    private static let prefixes: [PackedName] = names.map(PackedName.init(prefixOf:))
}
