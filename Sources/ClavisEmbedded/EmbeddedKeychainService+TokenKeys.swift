public import ClavisCore
import ClavisCrypto
import ClavisTPM
import FoundationEssentials

/// Keys the service holds (`kSecAttrTokenIDSecureEnclave`): generated here (in the keychain's TPM when it is bound to
/// one), sealed in their item like any secret, used here, and handed out only as their public key.
extension EmbeddedKeychainService {
    public func addGeneratedKey(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        guard item.itemClass == .key, TokenKey.isHeld(item.attributes) else {
            throw KeychainError(.param, "the service generates keys only for the token \(TokenKey.secureEnclave)")
        }
        let protection = try Self.heldKeyProtection(of: item)
        var generated = item
        let publicBytes: [UInt8]
        (publicBytes, generated.secret) = try generateHeldKey()
        generated.attributes[.accessible] = .string(protection.rawValue)
        for (name, value) in Self.tokenKeyFacts(publicBytes: publicBytes, isPermanent: true) {
            generated.attributes[name] = value
        }
        generated.attributes[.tokenHolder] = .string(Self.holder(of: generated.secret).rawValue)
        return try addStoring(generated).map { stored in
            var stored = stored
            stored.secret = SecureBytes(publicBytes)
            return stored
        }
    }

    public func useKey(_ reference: PersistentReference, for use: KeyUse, authentication: AuthenticationProof?)
        throws(KeychainError) -> ServiceAnswer<SecureBytes>
    {
        let query = try scoped(
            ItemQuery(
                itemClass: .key, synchronizable: .any, persistentReference: reference, limit: .one, returnsSecret: true,
                authentication: authentication))
        return try keychain.find(query).map { (found) throws(KeychainError) -> SecureBytes in
            guard let item = found.first, let secret = item.secret else {
                throw KeychainError(.itemNotFound, "no key item has this persistent reference")
            }
            guard TokenKey.isHeld(item.attributes) else {
                throw KeychainError(.param, "the key is not held by the keychain service")
            }
            return try run(use, withHeldSecret: secret)
        }
    }

    /// Runs `use` with the held key whose stored secret is `secret`: in the TPM for a TPM's object, else here.
    ///
    /// - Throws: `param` for input the key refuses; what `useTPMKey` throws.
    func run(_ use: KeyUse, withHeldSecret secret: SecureBytes) throws(KeychainError) -> SecureBytes {
        if TPMKey.isWrapped(secret.unprotectedBytes()) { return try useTPMKey(secret, for: use) }
        do throws(CryptoError) {
            let key = try AsymmetricKey.ellipticCurve(x963: secret, isPrivate: true)
            switch use {
            case .signDigest(let digest):
                return SecureBytes(try key.sign(digest: digest, algorithm: nil, padding: .ecdsa))
            case .agree(let peer):
                let peerKey = try AsymmetricKey.ellipticCurve(x963: SecureBytes(peer), isPrivate: false)
                guard peerKey.kind == key.kind else { throw CryptoError.invalidInput("another curve") }
                return try key.sharedSecret(with: peerKey, cofactor: false)
            }
        } catch {
            throw KeychainError(.param, "the key cannot run this operation on this input")
        }
    }

    /// The protection class of a held key `item` describes: its own, which must be a `ThisDeviceOnly` class
    /// (`WhenUnlockedThisDeviceOnly` when it names none).
    ///
    /// - Throws: `param` for a class that may leave the device.
    static func heldKeyProtection(of item: NewItem) throws(KeychainError) -> ProtectionClass {
        let protection = item.attributes[.accessible]?.stringValue.flatMap(ProtectionClass.init(rawValue:))
        guard protection?.isThisDeviceOnly ?? true else {
            throw KeychainError(.param, "a key held by the token never leaves the device: use a ThisDeviceOnly class")
        }
        return protection ?? .whenUnlockedThisDeviceOnly
    }

    /// `items` as the caller may see them: a token-held key's secret (its private key) replaced by its public key,
    /// and what holds it named (for a key stored before its holder was recorded, from the secret).
    static func publicOnly(_ items: [Item]) -> [Item] {
        // Passwords as they are, without a copy of the array: most reads find no key.
        guard items.contains(where: { $0.itemClass == .key }) else { return items }
        return items.map { item in
            guard item.itemClass == .key, let secret = item.secret, TokenKey.isHeld(item.attributes) else {
                return item
            }
            var shown = item
            shown.secret = heldKeyPublicBytes(secret).map { SecureBytes($0) }
            shown.attributes[.tokenHolder] = shown.attributes[.tokenHolder] ?? .string(holder(of: secret).rawValue)
            return shown
        }
    }

    /// What holds the token key whose stored secret is `secret`: the TPM for a TPM's object, else software.
    static func holder(of secret: SecureBytes) -> TokenKey.Holder {
        TPMKey.isWrapped(secret.unprotectedBytes()) ? .tpm : .software
    }

    /// What the service says of a key it holds, whatever the caller asked: a private EC P-256 key, sensitive and
    /// never extractable, that signs, decrypts and derives, found by the SHA-1 of its public key; stored in an item
    /// or not (`isPermanent`).
    static func tokenKeyFacts(publicBytes: [UInt8], isPermanent: Bool) -> [AttributeKey: AttributeValue] {
        [
            .keyClass: .number(1), .keyType: .number(73), .keySizeInBits: .number(256), .effectiveKeySize: .number(256),
            .applicationLabel: .data(Data(DigestAlgorithm.sha1.hash(publicBytes))), .isPermanent: .bool(isPermanent),
            .isSensitive: .bool(true), .wasAlwaysSensitive: .bool(true), .isExtractable: .bool(false),
            .wasNeverExtractable: .bool(true), .canSign: .bool(true), .canDecrypt: .bool(true),
            .canDerive: .bool(true), .canUnwrap: .bool(true), .canVerify: .bool(false), .canEncrypt: .bool(false),
            .canWrap: .bool(false),
        ]
    }
}
