/// How a digest becomes a signature.
public enum SignaturePadding: Sendable, Hashable {
    /// ECDSA (X9.62): the signature is a DER `ECDSA-Sig-Value`; the digest is used as given.
    case ecdsa
    /// RSASSA-PKCS1-v1_5: with a digest algorithm the digest is wrapped in its DigestInfo, without one it is
    /// padded as it is.
    case pkcs1v15
    /// RSASSA-PSS with MGF1 over the same hash and a salt as long as the digest (Apple's choice).
    case pss
    /// Raw RSA: the input is one block, smaller than the modulus, and is exponentiated as it is.
    case none
}
