import Foundation
import Security

/// A public key as `openssl` and most tools read it: a PEM "PUBLIC KEY" block around the DER SubjectPublicKeyInfo,
/// built from the key's Apple external representation (the X9.63 point of an EC key, the PKCS#1 RSAPublicKey of an
/// RSA key) under the algorithm's identifier, as Apple's own documentation has developers do.
enum PublicKeyPEM {
    /// The PEM text of `key` (a public EC P-256/384/521 or RSA key), or `nil` for any other.
    static func text(of key: SecKey) -> String? {
        guard let attributes = SecKeyCopyAttributes(key) as? [String: Any],
            let bytes = SecKeyCopyExternalRepresentation(key, nil) as Data?
        else { return nil }
        let type = attributes[kSecAttrKeyType as String].map { "\($0)" }
        let bits = (attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue
        let algorithm: [UInt8]
        if type == String(kSecAttrKeyTypeECSECPrimeRandom), let bits, let curve = curveIdentifiers[bits] {
            algorithm = sequence(ecPublicKey + curve)
        } else if type == String(kSecAttrKeyTypeRSA) {
            algorithm = sequence(rsaEncryption + [0x05, 0x00])
        } else {
            return nil
        }
        return block("PUBLIC KEY", Data(sequence(algorithm + element(0x03, [0x00] + Array(bytes)))))
    }

    /// One PEM block of `name` around `der`, lines of 64 characters.
    static func block(_ name: String, _ der: Data) -> String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(name)-----\n\(body)\n-----END \(name)-----\n"
    }

    /// The OID 1.2.840.10045.2.1 (id-ecPublicKey).
    private static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// The OID 1.2.840.113549.1.1.1 (rsaEncryption).
    private static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// The named curves' OIDs by size: prime256v1, secp384r1, secp521r1.
    private static let curveIdentifiers: [Int: [UInt8]] = [
        256: [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07],
        384: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22],
        521: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23],
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
