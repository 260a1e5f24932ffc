public import ClavisCrypto

extension AsymmetricKey {
    /// The key's type, class and size in the manner of Apple's `SecKey` description ("<SecKeyRef key type:
    /// ECPrivateKey, block size: 256 bits>"); `isPrivate` for a private key a token holds, of which only the public
    /// key is here. Never key material.
    public func summary(isPrivate: Bool) -> String {
        let type: String
        switch kind {
        case .ellipticCurve: type = isPrivate ? "ECPrivateKey" : "ECPublicKey"
        case .rsa: type = isPrivate ? "RSAPrivateKey" : "RSAPublicKey"
        }
        return "<SecKeyRef key type: \(type), block size: \(bitCount) bits>"
    }
}
