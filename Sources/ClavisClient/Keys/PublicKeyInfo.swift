public import ClavisCore
public import ClavisCrypto
import FoundationEssentials

/// A public key as `openssl` and most tools read it: the DER SubjectPublicKeyInfo, built from the key's Apple
/// external representation (the X9.63 point of an EC key, the PKCS#1 RSAPublicKey of an RSA key) under the
/// algorithm's identifier, as Apple's own documentation has developers do.
public enum PublicKeyInfo {
    /// The DER SubjectPublicKeyInfo of `key`'s public key.
    ///
    /// - Throws: `param` when the key cannot be exported.
    public static func der(of key: AsymmetricKey) throws(KeychainError) -> [UInt8] {
        let algorithm: [UInt8]
        switch key.kind {
        case .ellipticCurve(let curve): algorithm = sequence(ecPublicKey + curveIdentifiers[curve]!)
        case .rsa: algorithm = sequence(rsaEncryption + [0x05, 0x00])
        }
        let bytes = try KeyItemFormat.publicRepresentation(of: key)
        return sequence(algorithm + element(0x03, [0x00] + bytes))
    }

    /// The PEM "PUBLIC KEY" block of `key`'s public key.
    ///
    /// - Throws: `param` when the key cannot be exported.
    public static func pem(of key: AsymmetricKey) throws(KeychainError) -> String {
        PEM.block("PUBLIC KEY", Data(try der(of: key)))
    }

    /// The OID 1.2.840.10045.2.1 (id-ecPublicKey).
    private static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// The OID 1.2.840.113549.1.1.1 (rsaEncryption).
    private static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// The named curves' OIDs: prime256v1, secp384r1, secp521r1.
    private static let curveIdentifiers: [EllipticCurve: [UInt8]] = [
        .p256: [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07],
        .p384: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22],
        .p521: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23],
    ]

    private static func sequence(_ content: [UInt8]) -> [UInt8] { element(0x30, content) }

    /// One DER element: the tag, the definite length (short or long form), the content.
    private static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        var remaining = content.count
        if remaining < 0x80 {
            length = [UInt8(remaining)]
        } else {
            while remaining > 0 {
                length.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }
}
