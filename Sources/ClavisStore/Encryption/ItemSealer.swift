import ClavisCore
import ClavisCrypto

/// The encrypted parts of one item row: its wrapped item key and its sealed attributes and secret.
struct SealedItem {
    var wrappedKey: [UInt8]
    var attributes: [UInt8]
    var secret: [UInt8]
}

/// How a row's blobs are sealed (the `items.sealing` column).
enum SealingFormat: Int64 {
    /// Each box is nonce ‖ ciphertext ‖ tag under a random nonce (rows written before schema version 2).
    case randomNonce = 0
    /// Each box is ciphertext ‖ tag under a fixed nonce per part. The item key is fresh for every sealing (an add, an
    /// update, a tombstone all draw a new one) and seals each part exactly once, so a nonce never repeats under a key
    /// and storing a random one would only cost 12 bytes per box.
    case partNonce = 1
}

/// The identity a sealed item is bound to: a blob moved to a row with another identity fails to open.
struct RowBinding {
    var itemClass: ItemClass
    var protection: ProtectionClass
    var persistentReference: PersistentReference
    var format: SealingFormat = .partNonce

    /// The additional authenticated data for one part (`attributes` or `secret`) of the row.
    func authenticatedData(part: String) -> [UInt8] {
        // "clavis.item.v1:<class>:<protection>:<part>:" and the reference, appended without string interpolation
        // ("v2" for the part-nonce format, so a box never opens as the other format's).
        var bytes = format == .randomNonce ? Self.prefix : Self.partNoncePrefix
        bytes.reserveCapacity(48 + persistentReference.bytes.count)
        for field in [itemClass.rawValue, protection.rawValue, part] {
            bytes += field.utf8
            bytes.append(UInt8(ascii: ":"))
        }
        return bytes + persistentReference.bytes
    }

    private static let prefix = Array("clavis.item.v1:".utf8)
    private static let partNoncePrefix = Array("clavis.item.v2:".utf8)
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
        precondition(binding.format == .partNonce, "items are sealed in the newest format")
        // A fresh key for every sealing: the fixed nonces below are safe only because no key seals twice.
        let itemKey = SecureRandom.secureBytes(count: 32)
        let encodedAttributes = SecureBytes(StoredAttributes.encode(attributes))
        return SealedItem(
            wrappedKey: try classKey.wrap(itemKey),
            attributes: try seal(encodedAttributes, key: itemKey, part: .attributes, binding: binding),
            secret: try seal(secret, key: itemKey, part: .secret, binding: binding))
    }

    /// The two sealed parts of a row, each with its own nonce under the item key.
    private enum Part: String {
        case attributes, secret

        var nonce: [UInt8] {
            [UInt8](repeating: 0, count: AESGCM.nonceByteCount - 1) + [self == .attributes ? 1 : 2]
        }
    }

    private func seal(_ plaintext: SecureBytes, key: SecureBytes, part: Part, binding: RowBinding) throws -> [UInt8] {
        let box = try boxes.seal(
            plaintext, key: key, nonce: part.nonce, authenticating: binding.authenticatedData(part: part.rawValue))
        return Array(box.dropFirst(AESGCM.nonceByteCount))
    }

    private func open(_ sealed: [UInt8], key: SecureBytes, part: Part, binding: RowBinding) throws -> SecureBytes {
        let box = binding.format == .randomNonce ? sealed : part.nonce + sealed
        return try boxes.open(box, key: key, authenticating: binding.authenticatedData(part: part.rawValue))
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
            plaintext = try open(sealed, key: itemKey, part: .attributes, binding: binding)
        } catch {
            throw Self.decodeFailure(binding)
        }
        return try StoredAttributes.decode(plaintext.unprotectedBytes())
    }

    /// Opens a row's secret.
    func openSecret(_ sealed: [UInt8], itemKey: SecureBytes, binding: RowBinding) throws(KeychainError)
        -> SecureBytes
    {
        do {
            return try open(sealed, key: itemKey, part: .secret, binding: binding)
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
