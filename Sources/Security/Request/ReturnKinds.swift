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

    /// The key that asks for each kind.
    static let keys: [(RequestKey, ReturnKinds)] = [
        (.returnData, .data), (.returnAttributes, .attributes),
        (.returnPersistentReference, .persistentReference), (.returnReference, .reference),
    ]
}
