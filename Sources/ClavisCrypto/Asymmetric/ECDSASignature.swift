internal import COpenSSL

/// Converts ECDSA signatures between X9.62 DER (`ECDSA-Sig-Value`) and RFC 4754's fixed-size `r ‖ s`.
public enum ECDSASignature {
    /// `r ‖ s`, each left-padded to the curve's coordinate length, from a DER signature.
    public static func raw(fromDER der: [UInt8], curve: EllipticCurve) throws(CryptoError) -> [UInt8] {
        let half = curve.coordinateByteCount
        var raw = [UInt8](repeating: 0, count: 2 * half)
        let ok = try der.withBytes { input, count throws(CryptoError) in
            try raw.withMutableBytes { output, _ throws(CryptoError) in
                clavis_ecdsa_der_to_raw(input, count, output, half)
            }
        }
        guard ok == 1 else { throw OpenSSLStatus.cleared(.invalidInput("not a DER ECDSA signature for this curve")) }
        return raw
    }

    /// The DER signature for `r ‖ s`, which must be twice the curve's coordinate length.
    public static func der(fromRaw raw: [UInt8], curve: EllipticCurve) throws(CryptoError) -> [UInt8] {
        let half = curve.coordinateByteCount
        guard raw.count == 2 * half else {
            throw .invalidInput("an RFC 4754 signature on this curve is \(2 * half) bytes, not \(raw.count)")
        }
        var der = [UInt8](repeating: 0, count: 2 * half + 16)
        let length = try raw.withBytes { input, _ throws(CryptoError) in
            try der.withMutableBytes { output, capacity throws(CryptoError) in
                clavis_ecdsa_raw_to_der(input, half, output, capacity)
            }
        }
        guard length > 0 else { throw OpenSSLStatus.failure("i2d_ECDSA_SIG") }
        return Array(der.prefix(length))
    }
}
