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
        // "clavis.item.v1:<class>:<protection>:<part>:" and the reference, appended without string interpolation.
        var bytes = Self.prefix
        bytes.reserveCapacity(48 + persistentReference.bytes.count)
        for field in [itemClass.rawValue, protection.rawValue, part] {
            bytes += field.utf8
            bytes.append(UInt8(ascii: ":"))
        }
        return bytes + persistentReference.bytes
    }

    private static let prefix = Array("clavis.item.v1:".utf8)
}

/// Encrypts and decrypts items: a fresh random key per item seals its attributes and its secret with AES-256-GCM,
/// and is itself wrapped by its protection class's key (RFC 3394).
///
/// Holds the cipher contexts it reuses from one item to the next; not thread-safe (the engine serialises its use).
final class ItemSealer {
    private let boxes = AESGCMContext()

    /// Zeroes the last item key's schedule kept in the cipher contexts (when the keychain locks).
    func forgetKeys() {
        boxes.forgetKey()
    }

    func seal(
        attributes: [AttributeKey: AttributeValue], secret: SecureBytes, binding: RowBinding, classKey: AESKeyWrapKey
    ) throws -> SealedItem {
        let itemKey = SecureRandom.secureBytes(count: 32)
        let encodedAttributes = SecureBytes(AttributeCodec.encode(attributes))
        return SealedItem(
            wrappedKey: try classKey.wrap(itemKey),
            attributes: try boxes.seal(
                encodedAttributes, key: itemKey, authenticating: binding.authenticatedData(part: "attributes")),
            secret: try boxes.seal(secret, key: itemKey, authenticating: binding.authenticatedData(part: "secret")))
    }

    /// Unwraps the item key of a row.
    func itemKey(wrappedKey: [UInt8], classKey: AESKeyWrapKey, binding: RowBinding) throws(KeychainError)
        -> SecureBytes
    {
        do {
            return try classKey.unwrap(wrappedKey)
        } catch {
            throw Self.decodeFailure(binding)
        }
    }

    /// Opens a row's attributes.
    func openAttributes(_ sealed: [UInt8], itemKey: SecureBytes, binding: RowBinding) throws(KeychainError)
        -> [AttributeKey: AttributeValue]
    {
        let plaintext: SecureBytes
        do {
            plaintext = try boxes.open(
                sealed, key: itemKey, authenticating: binding.authenticatedData(part: "attributes"))
        } catch {
            throw Self.decodeFailure(binding)
        }
        return try AttributeCodec.decode(plaintext.unprotectedBytes())
    }

    /// Opens a row's secret.
    func openSecret(_ sealed: [UInt8], itemKey: SecureBytes, binding: RowBinding) throws(KeychainError)
        -> SecureBytes
    {
        do {
            return try boxes.open(sealed, key: itemKey, authenticating: binding.authenticatedData(part: "secret"))
        } catch {
            throw Self.decodeFailure(binding)
        }
    }

    private static func decodeFailure(_ binding: RowBinding) -> KeychainError {
        KeychainError(
            .decode,
            "item \(binding.persistentReference) (\(binding.itemClass.rawValue)) does not decrypt: its stored data was altered or moved"
        )
    }
}
