/// How RSA encryption pads a message.
public enum RSAEncryptionPadding: Sendable, Hashable {
    /// Raw RSA: the message is one block of exactly the modulus' length, smaller than the modulus.
    case none
    /// RSAES-PKCS1-v1_5: up to the modulus' length less 11 bytes.
    case pkcs1
    /// RSAES-OAEP with MGF1 over the same hash and an empty label.
    case oaep(DigestAlgorithm)

    /// The longest message this padding takes under a modulus of `blockByteCount` bytes.
    public func maximumMessageByteCount(blockByteCount: Int) -> Int {
        switch self {
        case .none: blockByteCount
        case .pkcs1: blockByteCount - 11
        case .oaep(let digest): blockByteCount - 2 * digest.byteCount - 2
        }
    }
}
