public import ClavisAuthentication

/// What `kSecUseAuthenticationContext` must hold: an object carrying an authentication session.
///
/// `LAContext` (in LocalAuthentication, which depends on this module) conforms; `SecItem*` calls read the session's
/// fresh credentials and, when an item needs more, evaluate its access control on that session. Public (not SPI)
/// because a public class conforms to it; the underscore marks it as no part of Apple's API.
public protocol _ClavisAuthenticationContext: AnyObject {
    /// The session behind the context.
    var clavisSession: AuthenticationSession { get }
    /// The reason prompts show when the query has no `kSecUseOperationPrompt` (empty for none).
    var localizedReason: String { get }
}
