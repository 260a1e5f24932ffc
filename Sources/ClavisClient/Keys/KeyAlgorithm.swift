public import ClavisCore
public import ClavisCrypto

/// What one of Apple's key algorithm names (`SecKeyAlgorithm`, `algid:sign:ECDSA:message-X962:SHA256`) asks for,
/// decoded once from the name.
public enum KeyAlgorithm: Sendable {
    /// A signature.
    case signature(SignatureScheme)
    /// RSA encryption with this padding.
    case rsaEncryption(RSAEncryptionPadding)
    /// RSA-OAEP with this digest around AES-GCM.
    case rsaHybrid(DigestAlgorithm)
    /// ECIES (X9.63 KDF with this digest, AES-GCM); `variableIV` for the `-KDFIV` variant.
    case ecies(DigestAlgorithm, variableIV: Bool)
    /// ECDH, then the X9.63 KDF with this digest (or none).
    case keyExchange(kdf: DigestAlgorithm?)

    /// The algorithm Apple's `name` stands for, or nil for a name Clavis does not implement.
    public init?(name: String) {
        guard let algorithm = Self.table[name] else { return nil }
        self = algorithm
    }

    /// The algorithm `name` stands for when `key` (private when `isPrivate`) can run it for `operation`.
    ///
    /// - Throws: `param` with Apple's text ("<algorithm>: algorithm not supported by the key <key>") otherwise.
    public static func supported(named name: String, for operation: KeyOperation, key: AsymmetricKey, isPrivate: Bool)
        throws(KeychainError) -> KeyAlgorithm
    {
        guard let algorithm = KeyAlgorithm(name: name), algorithm.supports(operation, with: key, isPrivate: isPrivate)
        else { throw unsupported(name, key: key, isPrivate: isPrivate) }
        return algorithm
    }

    /// Apple's `errSecParam` for an algorithm the key cannot run.
    static func unsupported(_ name: String, key: AsymmetricKey, isPrivate: Bool) -> KeychainError {
        KeychainError(.param, "\(name): algorithm not supported by the key \(key.summary(isPrivate: isPrivate))")
    }

    /// Every algorithm name Clavis implements, with what it asks for.
    static let table: [String: KeyAlgorithm] = {
        var table: [String: KeyAlgorithm] = [:]
        func sign(
            _ name: String, rsa: Bool, hashes: Bool, _ digest: DigestAlgorithm?, _ padding: SignaturePadding,
            raw: Bool = false
        ) {
            table["algid:sign:" + name] = .signature(
                SignatureScheme(isRSA: rsa, hashesMessage: hashes, digest: digest, padding: padding, rawECDSA: raw))
        }
        sign("RSA:raw", rsa: true, hashes: false, nil, .none)
        sign("RSA:digest-PKCS1v15", rsa: true, hashes: false, nil, .pkcs1v15)
        sign("ECDSA:RFC4754", rsa: false, hashes: false, nil, .ecdsa, raw: true)
        sign("ECDSA:digest-X962", rsa: false, hashes: false, nil, .ecdsa)
        let salts: [DigestAlgorithm: Int] = [.sha1: 20, .sha224: 24, .sha256: 32, .sha384: 48, .sha512: 64]
        for digest in DigestAlgorithm.allCases {
            let hash = digest.rawValue
            let pss = "\(hash):\(hash):\(salts[digest]!)"
            for (kind, hashes) in [("digest", false), ("message", true)] {
                sign("RSA:\(kind)-PKCS1v15:\(hash)", rsa: true, hashes: hashes, digest, .pkcs1v15)
                sign("RSA:\(kind)-PSS:\(pss)", rsa: true, hashes: hashes, digest, .pss)
                sign("ECDSA:\(kind)-X962:\(hash)", rsa: false, hashes: hashes, digest, .ecdsa)
                sign("ECDSA:\(kind)-RFC4754:\(hash)", rsa: false, hashes: hashes, digest, .ecdsa, raw: true)
            }
            table["algid:encrypt:RSA:OAEP:\(hash)"] = .rsaEncryption(.oaep(digest))
            table["algid:encrypt:RSA:OAEP:\(hash):AESGCM"] = .rsaHybrid(digest)
            for exchange in ["ECDH", "ECDHC"] {
                table["algid:encrypt:ECIES:\(exchange):KDFX963:\(hash):AESGCM"] = .ecies(digest, variableIV: false)
                if digest != .sha1 {
                    table["algid:encrypt:ECIES:\(exchange):KDFX963:\(hash):AESGCM-KDFIV"] = .ecies(
                        digest, variableIV: true)
                }
                table["algid:keyexchange:\(exchange):KDFX963:\(hash)"] = .keyExchange(kdf: digest)
            }
        }
        table["algid:encrypt:RSA:raw"] = .rsaEncryption(.none)
        table["algid:encrypt:RSA:PKCS1"] = .rsaEncryption(.pkcs1)
        table["algid:keyexchange:ECDH"] = .keyExchange(kdf: nil)
        table["algid:keyexchange:ECDHC"] = .keyExchange(kdf: nil)
        return table
    }()

    /// True when `key` can run this algorithm for `operation` (Apple's `SecKeyIsAlgorithmSupported`); `isPrivate`
    /// says whether the key is private (a token-held key is, though only its public key is here).
    public func supports(_ operation: KeyOperation, with key: AsymmetricKey, isPrivate: Bool) -> Bool {
        let isRSA = KeyType(of: key) == .rsa
        switch (self, operation) {
        case (.signature(let signature), _) where signature.padding == .pss:
            // Apple checks that PSS fits the modulus first: a block of at least two digests and two bytes.
            guard let digest = signature.digest, key.blockByteCount >= 2 * digest.byteCount + 2 else { return false }
            return isRSA && (operation == .sign ? isPrivate : operation == .verify && !isPrivate)
        case (.signature(let signature), .sign): return signature.isRSA == isRSA && isPrivate
        case (.signature(let signature), .verify): return signature.isRSA == isRSA && !isPrivate
        case (.rsaEncryption, .encrypt), (.rsaHybrid, .encrypt): return isRSA && !isPrivate
        case (.rsaEncryption, .decrypt), (.rsaHybrid, .decrypt): return isRSA && isPrivate
        case (.ecies, .encrypt): return !isRSA && !isPrivate
        case (.ecies, .decrypt): return !isRSA && isPrivate
        case (.keyExchange, .keyExchange): return !isRSA && isPrivate
        default: return false
        }
    }
}
