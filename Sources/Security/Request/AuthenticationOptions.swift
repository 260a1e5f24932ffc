import ClavisClient
import ClavisCore

/// The keys of a query that say how to authenticate for access-controlled items.
///
/// - `kSecUseAuthenticationContext`: an `LAContext`; its fresh credentials are handed to the store, and prompts go
///   through it (its `interactionNotAllowed` forbids them).
/// - `kSecUseOperationPrompt`: the reason shown when the passcode or biometry is asked for.
/// - `kSecUseAuthenticationUI`: `kSecUseAuthenticationUIAllow` (default: ask when needed),
///   `kSecUseAuthenticationUIFail` (a protected item that would need asking answers `errSecInteractionNotAllowed`),
///   `kSecUseAuthenticationUISkip` (`SecItemCopyMatching` only: such items are left out; elsewhere `errSecParam`).
///   The deprecated `kSecUseNoAuthenticationUI` set to true means Fail.
struct AuthenticationOptions {
    /// Whether the call may ask the user.
    enum Interface: Equatable {
        case allow, fail, skip
    }

    /// The context given, if any.
    var context: (any _ClavisAuthenticationContext)?
    /// The reason to show.
    var prompt: String?
    /// `kSecUseAuthenticationUI`.
    var interface: Interface = .allow
    /// Whether a locked keychain's passcode may be asked for: the macOS file keychain's rules, not the
    /// data-protection keychain's (`Compatibility`).
    var asksToUnlock = true

    init() {}

    /// Takes the authentication keys from `query`.
    ///
    /// - Throws: `param` for a context that is not an `LAContext`, an unknown `kSecUseAuthenticationUI` value, or
    ///   Skip outside `SecItemCopyMatching`.
    init(_ query: inout QueryDictionary, for operation: Operation) throws(KeychainError) {
        context = try Self.takeContext(&query)
        prompt = try query.takeString(.operationPrompt)
        if try query.takeBool(.noAuthenticationUI) == true { interface = .fail }
        if let value = try query.takeString(.authenticationUI) {
            switch value {
            case String(kSecUseAuthenticationUIAllow): interface = .allow
            case String(kSecUseAuthenticationUIFail): interface = .fail
            case String(kSecUseAuthenticationUISkip):
                guard operation == .copyMatching else {
                    throw KeychainError(.param, "kSecUseAuthenticationUISkip is only valid in SecItemCopyMatching")
                }
                interface = .skip
            default:
                throw KeychainError(.param, "kSecUseAuthenticationUI must be Allow, Fail or Skip")
            }
        }
    }

    /// Takes `kSecUseAuthenticationContext` from `query`; a value that is not an `LAContext` is `errSecParam`.
    static func takeContext(_ query: inout QueryDictionary) throws(KeychainError) -> (any _ClavisAuthenticationContext)?
    {
        guard let value = query.take(.authenticationContext) else { return nil }
        guard let context = value.object as? any _ClavisAuthenticationContext else {
            throw KeychainError(.param, "kSecUseAuthenticationContext must be an LAContext")
        }
        return context
    }

    /// The options as the keychain client takes them.
    var call: CallAuthentication { call(context: nil) }

    /// The options as the keychain client takes them, with `fallback` as the context when the query gave none
    /// (an update may carry its context among the attributes to change).
    func call(context fallback: (any _ClavisAuthenticationContext)?) -> CallAuthentication {
        let context = self.context ?? fallback
        let interface: CallAuthentication.Interface =
            switch self.interface {
            case .allow: .allow
            case .fail: .fail
            case .skip: .skip
            }
        let contextReason = context.flatMap { $0.localizedReason.isEmpty ? nil : $0.localizedReason }
        return CallAuthentication(
            session: context?.clavisSession, interface: interface, reason: prompt ?? contextReason,
            asksToUnlock: asksToUnlock)
    }
}
