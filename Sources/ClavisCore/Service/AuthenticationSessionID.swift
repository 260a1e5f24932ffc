/// Names one authentication session (the state behind an `LAContext`) to the keychain service, which records what
/// the session proved: the service, never the client, says whether the passcode was verified or biometry matched.
///
/// An identifier means something only on the connection (daemon) or in the process (embedded) that made it: another
/// client naming it gets nothing.
public struct AuthenticationSessionID: Sendable, Hashable {
    /// The identifier's value.
    public let rawValue: UInt64

    /// The identifier with this value.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A new identifier, drawn from the system's random generator.
    public static func random() -> AuthenticationSessionID {
        var generator = SystemRandomNumberGenerator()
        return AuthenticationSessionID(rawValue: generator.next())
    }
}
