internal import ClavisCore
internal import ClavisCrypto
internal import FoundationEssentials

/// The extra layer of an item whose access control has `applicationPassword`: its secret is sealed first under a
/// key derived from that password, then with the item's key like any other secret.
///
/// Layout of the inner blob (`PassphraseSealedBlob`): `cap1`, a 2-byte big-endian length and the JSON of the password
/// KDF (scrypt, with a salt of its own), then AES-256-GCM (nonce ‖ ciphertext ‖ tag) authenticated with that prefix and
/// the item's persistent reference. Nothing checks the password apart from this: a wrong one fails the tag, and the
/// answer is `authFailed`.
enum ApplicationPasswordSealer {
    private static let format = PassphraseSealedBlob(magic: Array("cap1".utf8), lengthBytes: 2)

    /// The layer `password` makes with `kdf`: its key derived (the slow part, about 100 ms, done before the write
    /// transaction) and its header, ready to seal a secret once the item's reference is known.
    static func layer(password: SecureBytes, kdf: PasscodeKDF) throws -> Layer {
        guard !password.isEmpty else { throw KeychainError(.param, "an application password cannot be empty") }
        let prefix = try format.prefix(header: Array(try JSONEncoder().encode(kdf)))
        return Layer(prefix: prefix, key: try deriveKey(password, kdf))
    }

    /// A password's key and the header naming its derivation.
    struct Layer {
        fileprivate let prefix: [UInt8]
        fileprivate let key: SecureBytes

        /// Seals `secret` for the item `reference` names.
        func seal(_ secret: SecureBytes, reference: PersistentReference) throws -> SecureBytes {
            SecureBytes(try format.seal(secret, key: key, prefix: prefix, context: reference.bytes))
        }
    }

    /// Opens a blob `Layer.seal` made.
    ///
    /// - Throws: `authFailed` when `password` is not the one it was sealed with; `decode` when the blob is damaged.
    static func open(_ sealed: SecureBytes, password: SecureBytes, reference: PersistentReference) throws
        -> SecureBytes
    {
        let bytes = sealed.unprotectedBytes()  // ciphertext: not secret
        guard bytes.starts(with: format.magic) else {
            throw KeychainError(.decode, "item \(reference) has no application-password layer")
        }
        guard let (header, end) = format.header(of: bytes),
            let kdf = try? JSONDecoder().decode(PasscodeKDF.self, from: Data(header))
        else {
            throw KeychainError(.decode, "item \(reference)'s application-password layer is damaged")
        }
        let key = try deriveKey(password, kdf)
        do {
            return try format.open(bytes, end: end, key: key, context: reference.bytes)
        } catch {
            throw KeychainError(.authFailed, "the application password does not open this item")
        }
    }

    private static func deriveKey(_ password: SecureBytes, _ kdf: PasscodeKDF) throws(KeychainError) -> SecureBytes {
        do {
            return try kdf.deriveKey(from: password)
        } catch {
            throw KeychainError(.decode, "the application password's key derivation parameters are unusable")
        }
    }
}
