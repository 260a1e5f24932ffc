public import ClavisCore

// What the program hosting a service (clavisd, its Secret Service) reads of it besides the `KeychainService` calls:
// the keychain's folder and lock state, and what the caller's sessions proved. The keychain itself stays inside.
extension EmbeddedKeychainService {
    /// The folder of the keychain this service runs.
    public var home: KeychainHome { keychain.home }

    /// True while any protection class of the keychain is closed (locked, or not yet unlocked since it opened).
    public var isLocked: Bool { keychain.lockState != .unlocked }

    /// True when the keychain has a passcode (its items can be locked).
    public var hasPasscode: Bool { keychain.hasPasscode }

    /// True when `proof` is one this service's record shows to have verified this keychain's passcode.
    public func provesPasscode(_ proof: AuthenticationProof?) -> Bool {
        ledger.vetted(proof, keychainIdentity: keychain.identity)?.passcode ?? false
    }
}
