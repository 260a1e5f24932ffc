/// A key item's class (`kSecAttrKeyClass`, `kcls`) as Apple's numeric code.
public enum KeyClass: Int64, Sendable, CaseIterable {
    /// `kSecAttrKeyClassPublic`.
    case publicKey = 0
    /// `kSecAttrKeyClassPrivate`.
    case privateKey = 1
    /// `kSecAttrKeyClassSymmetric`.
    case symmetric = 2
}
