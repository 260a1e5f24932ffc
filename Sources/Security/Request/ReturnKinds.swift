/// What `SecItemCopyMatching` (or `SecItemAdd`) hands back for each item: the `kSecReturn*` keys set to true.
struct ReturnKinds: OptionSet, Sendable {
    let rawValue: UInt8

    /// `kSecReturnData`: the secret.
    static let data = ReturnKinds(rawValue: 1 << 0)
    /// `kSecReturnAttributes`: the attribute dictionary.
    static let attributes = ReturnKinds(rawValue: 1 << 1)
    /// `kSecReturnPersistentRef`: the persistent reference.
    static let persistentReference = ReturnKinds(rawValue: 1 << 2)
    /// `kSecReturnRef`: a reference object; password items have none (see `ResultShape`).
    static let reference = ReturnKinds(rawValue: 1 << 3)

    /// The key that asks for each kind (kept as the constants themselves: a `String` would be bridged back to a new
    /// `NSString` on every call). Immutable, as the constants are.
    nonisolated(unsafe) static let keys: [(CFString, ReturnKinds)] = [
        (kSecReturnData, .data), (kSecReturnAttributes, .attributes),
        (kSecReturnPersistentRef, .persistentReference), (kSecReturnRef, .reference),
    ]
}
