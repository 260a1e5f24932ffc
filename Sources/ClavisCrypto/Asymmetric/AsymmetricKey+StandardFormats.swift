internal import COpenSSL
public import ClavisCore

extension AsymmetricKey {
    /// Reads a key in the DER forms other tools write (`openssl`, a PEM file's body): a PKCS#8 PrivateKeyInfo or a
    /// traditional SEC1 or PKCS#1 private key when `isPrivate`, else a SubjectPublicKeyInfo.
    ///
    /// - Throws: `invalidInput` for anything else, trailing bytes, or a key other than EC P-256/384/521 or RSA.
    public static func standardDER(_ der: SecureBytes, isPrivate: Bool) throws(CryptoError) -> AsymmetricKey {
        let pointer = try der.withBytes { base, count throws(CryptoError) -> OpaquePointer in
            guard count > 0, let key = clavis_pkey_from_standard_der(base, count, isPrivate ? 1 : 0) else {
                throw .invalidInput(isPrivate ? "not a PKCS#8, SEC1 or PKCS#1 private key" : "not a public key")
            }
            return key
        }
        let key = try AsymmetricKey(taking: pointer)
        guard key.isPrivate == isPrivate else { throw .invalidInput("the key is not the kind asked for") }
        if case .rsa(let bits) = key.kind, !(512...8192).contains(bits) {
            throw .invalidInput("RSA key of \(bits) bits")
        }
        return key
    }
}
