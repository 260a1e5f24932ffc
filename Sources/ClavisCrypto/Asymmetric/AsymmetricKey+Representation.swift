internal import COpenSSL
public import ClavisCore

// Apple's external representations: ANSI X9.63 for EC keys (04 ‖ X ‖ Y, then ‖ K for a private key) and PKCS#1
// DER for RSA keys (RSAPublicKey, RSAPrivateKey).

extension AsymmetricKey {
    /// Reads an EC key in ANSI X9.63 form: `04 ‖ X ‖ Y` (public) or `04 ‖ X ‖ Y ‖ K` (private).
    ///
    /// The curve follows from the length; the point must lie on it and, for a private key, be the scalar's.
    public static func ellipticCurve(x963 bytes: SecureBytes, isPrivate: Bool) throws(CryptoError) -> AsymmetricKey {
        let curve: EllipticCurve? = EllipticCurve.allCases.first { curve in
            bytes.count == curve.pointByteCount + (isPrivate ? curve.coordinateByteCount : 0)
        }
        guard let curve else { throw .invalidInput("no curve has \(bytes.count)-byte X9.63 keys") }
        let pointer = try bytes.withBytes { base, count throws(CryptoError) -> OpaquePointer in
            guard base[0] == 4 else { throw .invalidInput("X9.63 key does not start with 04") }
            let scalar = isPrivate ? base + curve.pointByteCount : nil
            guard
                let key = clavis_ec_from_data(
                    curve.groupName, base, curve.pointByteCount, scalar, isPrivate ? curve.coordinateByteCount : 0)
            else { throw OpenSSLStatus.cleared(.invalidInput("X9.63 bytes are not a key on \(curve.groupName)")) }
            return key
        }
        return try AsymmetricKey(taking: pointer)
    }

    /// Reads an RSA key from PKCS#1 DER: an RSAPublicKey, or an RSAPrivateKey when `isPrivate`.
    public static func rsa(pkcs1 der: SecureBytes, isPrivate: Bool) throws(CryptoError) -> AsymmetricKey {
        let pointer = try der.withBytes { base, count throws(CryptoError) -> OpaquePointer in
            guard let key = clavis_rsa_from_der(base, count, isPrivate ? 1 : 0) else {
                throw OpenSSLStatus.cleared(.invalidInput("not a PKCS#1 RSA \(isPrivate ? "private" : "public") key"))
            }
            return key
        }
        let key = try AsymmetricKey(taking: pointer)
        guard case .rsa(let bits) = key.kind, bits >= 512, bits <= 8192 else {
            throw .invalidInput("RSA key of \(key.bitCount) bits")
        }
        return key
    }

    /// The public key's external representation: `04 ‖ X ‖ Y` for EC, RSAPublicKey DER for RSA.
    public func publicRepresentation() throws(CryptoError) -> [UInt8] {
        switch kind {
        case .ellipticCurve(let curve):
            var point = [UInt8](repeating: 0, count: curve.pointByteCount)
            let length = try point.withMutableBytes { base, count throws(CryptoError) in
                clavis_ec_public_point(pointer, base, count)
            }
            guard length == curve.pointByteCount, point[0] == 4 else {
                throw OpenSSLStatus.failure("EVP_PKEY_get_octet_string_param")
            }
            return point
        case .rsa:
            let length = clavis_rsa_to_der(pointer, nil, 0)
            guard length > 0 else { throw OpenSSLStatus.failure("i2d_PublicKey") }
            var der = [UInt8](repeating: 0, count: length)
            let written = try der.withMutableBytes { base, _ throws(CryptoError) in clavis_rsa_to_der(pointer, base, 0)
            }
            guard written == length else { throw OpenSSLStatus.failure("i2d_PublicKey") }
            return der
        }
    }

    /// The private key's external representation, only ever in a zeroing buffer: `04 ‖ X ‖ Y ‖ K` for EC,
    /// RSAPrivateKey DER for RSA.
    public func privateRepresentation() throws(CryptoError) -> SecureBytes {
        guard isPrivate else { throw .invalidInput("a public key has no private representation") }
        switch kind {
        case .ellipticCurve(let curve):
            let point = try publicRepresentation()
            return try SecureBytes.filling(count: point.count + curve.coordinateByteCount) {
                output throws(CryptoError) in
                output.update(from: point, count: point.count)
                guard clavis_ec_private_scalar(pointer, output + point.count, curve.coordinateByteCount) == 1 else {
                    throw OpenSSLStatus.failure("EVP_PKEY_get_bn_param")
                }
            }
        case .rsa:
            let length = clavis_rsa_to_der(pointer, nil, 1)
            guard length > 0 else { throw OpenSSLStatus.failure("i2d_PrivateKey") }
            return try SecureBytes.filling(count: length) { output throws(CryptoError) in
                guard clavis_rsa_to_der(pointer, output, 1) == length else {
                    throw OpenSSLStatus.failure("i2d_PrivateKey")
                }
            }
        }
    }
}
