public import ClavisCrypto

/// A signature algorithm as a key runs it: which keys, whether the input is hashed first, how the digest is checked
/// and padded, and whether an ECDSA signature is written r ‖ s (RFC 4754) instead of DER.
public struct SignatureScheme: Sendable, Hashable {
    /// True for an RSA algorithm, false for ECDSA.
    public var isRSA: Bool
    /// True when the input is a message the algorithm hashes; false when it is the digest itself.
    public var hashesMessage: Bool
    /// The digest algorithm, when the algorithm names one.
    public var digest: DigestAlgorithm?
    /// The padding (or ECDSA).
    public var padding: SignaturePadding
    /// True when the ECDSA signature is r ‖ s rather than DER.
    public var rawECDSA: Bool

    /// Creates a scheme.
    public init(isRSA: Bool, hashesMessage: Bool, digest: DigestAlgorithm?, padding: SignaturePadding, rawECDSA: Bool) {
        self.isRSA = isRSA
        self.hashesMessage = hashesMessage
        self.digest = digest
        self.padding = padding
        self.rawECDSA = rawECDSA
    }

    /// The digest the key signs: the message hashed, or the input as it is.
    public func input(_ data: [UInt8]) -> [UInt8] {
        guard hashesMessage, let digest else { return data }
        return digest.hash(data)
    }
}
