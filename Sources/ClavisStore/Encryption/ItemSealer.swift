import ClavisCore
import ClavisCrypto

/// The encrypted parts of one item row: its wrapped item key and its sealed attributes and secret.
struct SealedItem {
    var wrappedKey: [UInt8]
    var attributes: [UInt8]
    var secret: [UInt8]
}

/// The identity a sealed item is bound to: a blob moved to a row with another identity fails to open.
struct RowBinding {
    var itemClass: ItemClass
    var protection: ProtectionClass
    var persistentReference: PersistentReference

    /// The additional authenticated data for one part (`attributes` or `secret`) of the row.
    func authenticatedData(part: String) -> [UInt8] {
        Array("clavis.item.v1:\(itemClass.rawValue):\(protection.rawValue):\(part):".utf8) + persistentReference.bytes
    }
}

/// Encrypts and decrypts items: a fresh random key per item seals its attributes and its secret with AES-256-GCM,
/// and is itself wrapped by its protection class's key (RFC 3394).
enum ItemSealer {
    static func seal(
        attributes: [AttributeKey: AttributeValue], secret: SecureBytes, binding: RowBinding, classKey: SecureBytes
    ) throws -> SealedItem {
        let itemKey = SecureRandom.secureBytes(count: 32)
        let encodedAttributes = SecureBytes(AttributeCodec.encode(attributes))
        return SealedItem(
            wrappedKey: try AESKeyWrap.wrap(itemKey, with: classKey),
            attributes: try AESGCM.seal(
                encodedAttributes, key: itemKey, authenticating: binding.authenticatedData(part: "attributes")),
            secret: try AESGCM.seal(secret, key: itemKey, authenticating: binding.authenticatedData(part: "secret")))
    }

    /// Unwraps the item key of a row.
    static func itemKey(wrappedKey: [UInt8], classKey: SecureBytes, binding: RowBinding) throws(KeychainError)
        -> SecureBytes
    {
        do {
            return try AESKeyWrap.unwrap(wrappedKey, with: classKey)
        } catch {
            throw decodeFailure(binding)
        }
    }

    /// Opens a row's attributes.
    static func openAttributes(_ sealed: [UInt8], itemKey: SecureBytes, binding: RowBinding) throws(KeychainError)
        -> [AttributeKey: AttributeValue]
    {
        let plaintext: SecureBytes
        do {
            plaintext = try AESGCM.open(
                sealed, key: itemKey, authenticating: binding.authenticatedData(part: "attributes"))
        } catch {
            throw decodeFailure(binding)
        }
        return try AttributeCodec.decode(plaintext.unprotectedBytes())
    }

    /// Opens a row's secret.
    static func openSecret(_ sealed: [UInt8], itemKey: SecureBytes, binding: RowBinding) throws(KeychainError)
        -> SecureBytes
    {
        do {
            return try AESGCM.open(sealed, key: itemKey, authenticating: binding.authenticatedData(part: "secret"))
        } catch {
            throw decodeFailure(binding)
        }
    }

    private static func decodeFailure(_ binding: RowBinding) -> KeychainError {
        KeychainError(
            .decode,
            "item \(binding.persistentReference) (\(binding.itemClass.rawValue)) does not decrypt: its stored data was altered or moved"
        )
    }
}
