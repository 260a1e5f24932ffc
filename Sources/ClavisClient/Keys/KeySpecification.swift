public import ClavisCore
public import ClavisCrypto

/// The kind and size of a key to generate: EC on P-256, P-384 or P-521, or RSA of 1024 to 4096 bits (a multiple of 8),
/// as `SecKeyCreateRandomKey` accepts.
public enum KeySpecification: Sendable, Hashable {
    /// An EC key on `curve`.
    case ellipticCurve(EllipticCurve)
    /// An RSA key with a modulus of `bits`.
    case rsa(bits: Int)

    /// The key of `type` and `bits`.
    ///
    /// - Throws: `param` for a size the type does not come in.
    public init(type: KeyType, bits: Int) throws(KeychainError) {
        switch type {
        case .ellipticCurve:
            guard let curve = EllipticCurve(rawValue: bits) else {
                throw KeychainError(.param, "unsupported EC key size: \(bits)")
            }
            self = .ellipticCurve(curve)
        case .rsa:
            guard AsymmetricKey.rsaBitRange.contains(bits), bits.isMultiple(of: 8) else {
                throw KeychainError(.param, "unsupported RSA key size: \(bits)")
            }
            self = .rsa(bits: bits)
        }
    }

    /// A new random private key of this kind and size.
    ///
    /// - Throws: `param` when OpenSSL cannot make it.
    public func generate() throws(KeychainError) -> AsymmetricKey {
        do throws(CryptoError) {
            switch self {
            case .ellipticCurve(let curve): return try AsymmetricKey.generate(curve: curve)
            case .rsa(let bits): return try AsymmetricKey.generateRSA(bits: bits)
            }
        } catch {
            throw KeychainError(.param, "key generation failed")
        }
    }
}
