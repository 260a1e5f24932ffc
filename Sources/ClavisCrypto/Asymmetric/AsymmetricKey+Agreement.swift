internal import COpenSSL
public import ClavisCore

extension AsymmetricKey {
    /// The ECDH shared secret (the x-coordinate, as long as a coordinate) of this private key and `peer`'s public
    /// key on the same curve; `cofactor` asks for cofactor ECDH, which is the same on these curves (cofactor 1).
    public func sharedSecret(with peer: AsymmetricKey, cofactor: Bool) throws(CryptoError) -> SecureBytes {
        guard case .ellipticCurve(let curve) = kind, isPrivate else {
            throw .invalidInput("key agreement needs a private EC key")
        }
        guard peer.kind == kind else { throw .invalidInput("the peer's key is not on \(curve.groupName)") }
        let context = try borrowContext()
        defer { returnContext(context) }
        try OpenSSLStatus.check(EVP_PKEY_derive_init(context.pointer), "EVP_PKEY_derive_init")
        if cofactor {
            try OpenSSLStatus.check(
                EVP_PKEY_CTX_set_ecdh_cofactor_mode(context.pointer, 1), "EVP_PKEY_CTX_set_ecdh_cofactor_mode")
        }
        // Every AsymmetricKey's public point was checked when it was made (generated, or imported through
        // `clavis_ec_from_data`): OpenSSL need not check it again on every derivation.
        try OpenSSLStatus.check(
            EVP_PKEY_derive_set_peer_ex(context.pointer, peer.pointer, 0), "EVP_PKEY_derive_set_peer_ex")
        var length = curve.coordinateByteCount
        return try SecureBytes.filling(count: length) { output throws(CryptoError) in
            try OpenSSLStatus.check(EVP_PKEY_derive(context.pointer, output, &length), "EVP_PKEY_derive")
            guard length == curve.coordinateByteCount else { throw OpenSSLStatus.failure("EVP_PKEY_derive") }
        }
    }
}
