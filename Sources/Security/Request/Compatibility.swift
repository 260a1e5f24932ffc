import ClavisClient
import ClavisCore

/// Which of Apple's keychains a call follows where their rules differ: the macOS file keychain (lenient) or the
/// data-protection keychain (strict: every iOS call, and a macOS call with `kSecUseDataProtectionKeychain: true`).
///
/// The choice is made per call. A query with `kSecUseDataProtectionKeychain: true` gets the data-protection rules;
/// any other gets the process default, the file keychain's unless `CLAVIS_COMPAT=ios`.
///
/// The strict rules, as Apple's `SecItemServer.c` has them (each `errSecParam`):
///
/// | call | refused | accepted under both |
/// |---|---|---|
/// | `SecItemUpdate` | `kSecReturnData`, `kSecReturnAttributes`, `kSecReturnRef`, `kSecReturnPersistentRef` set to true | `kSecMatchLimit` (update acts on every match) |
/// | `SecItemDelete` | `kSecMatchLimit` other than `kSecMatchLimitAll` | `kSecReturn*` (ignored) |
///
/// The file keychain accepts and ignores all of them; update and delete act on every match under both. And a call
/// that meets a locked keychain asks for its passcode under the file keychain's rules; under the data-protection
/// keychain's, it answers `errSecInteractionNotAllowed`, as a locked iOS device does.
enum Compatibility: Sendable, Equatable {
    /// The macOS file keychain: accepts the extra keys many callers written for macOS send.
    case macOS
    /// The data-protection keychain: refuses them with `errSecParam`.
    case iOS

    /// The default of `configuration`: `CLAVIS_COMPAT=ios` selects iOS; anything else, or nothing, macOS.
    static func configuredDefault(_ configuration: ClavisConfiguration) -> Compatibility {
        configuration.dataProtectionRulesByDefault ? .iOS : .macOS
    }

    /// The rules of one call: the data-protection keychain's when `query` says `kSecUseDataProtectionKeychain:
    /// true`, else `defaultRules` (the call's configuration's). A value of the wrong type is refused later, where
    /// the key is read.
    static func rules(for query: QueryDictionary, defaultRules: Compatibility) -> Compatibility {
        if let value = query.value(.dataProtectionKeychain),
            (try? ValueDecoding.bool(value, key: RequestKey.dataProtectionKeychain.name)) == true
        {
            return .iOS
        }
        return defaultRules
    }

    /// Checks a request's return keys and match limit against these rules.
    func check(returns: ReturnKinds, limit: MatchLimit?, for operation: Operation) throws(KeychainError) {
        guard self == .iOS else { return }
        switch operation {
        case .update where !returns.isEmpty:
            throw KeychainError(.param, "kSecReturn* is not supported by SecItemUpdate in the data-protection keychain")
        case .delete where limit != nil && limit != .all:
            throw KeychainError(
                .param, "kSecMatchLimit is not supported by SecItemDelete in the data-protection keychain")
        default:
            return
        }
    }
}

/// The four keychain calls.
enum Operation: String, Sendable, CustomStringConvertible {
    case add = "SecItemAdd"
    case copyMatching = "SecItemCopyMatching"
    case update = "SecItemUpdate"
    case delete = "SecItemDelete"

    var description: String { rawValue }
}
