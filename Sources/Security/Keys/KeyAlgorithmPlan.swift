import ClavisCrypto

/// What a `SecKeyAlgorithm` asks for, decoded once from Apple's name.
enum KeyAlgorithmPlan {
    /// A signature: which keys, whether the input is hashed first, how the digest is checked and padded, and
    /// whether an ECDSA signature is written r ‖ s instead of DER.
    struct Signature {
        var isRSA: Bool
        var hashesMessage: Bool
        var digest: DigestAlgorithm?
        var padding: SignaturePadding
        var rawECDSA: Bool
    }

    case signature(Signature)
    case rsaEncryption(RSAEncryptionPadding)
    case rsaHybrid(DigestAlgorithm)
    case ecies(DigestAlgorithm, variableIV: Bool)
    case keyExchange(kdf: DigestAlgorithm?)

    /// The plan for `algorithm`, or nil for a name Clavis does not know.
    init?(_ algorithm: SecKeyAlgorithm) {
        guard let plan = Self.table[algorithm.rawValue as String] else { return nil }
        self = plan
    }

    /// Every algorithm name Clavis implements, with its plan.
    static let table: [String: KeyAlgorithmPlan] = {
        var table: [String: KeyAlgorithmPlan] = [:]
        func sign(
            _ name: String, rsa: Bool, hashes: Bool, _ digest: DigestAlgorithm?, _ padding: SignaturePadding,
            raw: Bool = false
        ) {
            table["algid:sign:" + name] = .signature(
                Signature(isRSA: rsa, hashesMessage: hashes, digest: digest, padding: padding, rawECDSA: raw))
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

    /// True when `key` can run this plan for `operation` (Apple's `SecKeyIsAlgorithmSupported`); `isPrivate`
    /// says whether the key is private (a token-held key is, though only its public key is here).
    func supports(_ operation: SecKeyOperationType, with key: AsymmetricKey, isPrivate: Bool) -> Bool {
        let isRSA: Bool
        if case .rsa = key.kind { isRSA = true } else { isRSA = false }
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
