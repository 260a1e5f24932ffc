internal import ClavisCore
internal import ClavisCrypto

/// The encrypted parts of one item row: what its item key is found from and its sealed attributes and secret.
struct SealedItem {
    /// The salt the item key is derived from (the `wrapped_key` column, which held a wrapped key before format 2).
    var salt: [UInt8]
    var attributes: [UInt8]
    var secret: [UInt8]
}

/// How a row's blobs are sealed (the `items.sealing` column).
enum SealingFormat: Int64, CaseIterable {
    /// Each box is nonce ‖ ciphertext ‖ tag under a random nonce (rows written before schema version 2).
    case randomNonce = 0
    /// Each box is ciphertext ‖ tag under a fixed nonce per part. The item key is fresh for every sealing (an add, an
    /// update, a tombstone all draw a new one) and seals each part exactly once, so a nonce never repeats under a key
    /// and storing a random one would only cost 12 bytes per box.
    case partNonce = 1
    /// As `partNonce`, with the item key derived from the class key and a random salt the sealing draws (`ClassKey`)
    /// instead of drawn at random and wrapped: the row stores 16 bytes of salt instead of a 40-byte wrapped key. A
    /// fresh salt per sealing is a fresh key per sealing, so the fixed nonces stay safe. The row's `sync` is bound
    /// too, since the attributes no longer hold it.
    case derivedKey = 2
    /// As `derivedKey`, for an item without an access control: both boxes also bind the row's primary-key digest,
    /// and the format itself says that the item has no access control. A read by whole primary key that wants only
    /// the secret then opens the secret alone: the box proves that the row's digest (the query's, which the
    /// statement matched) is the item's own, and that nothing guards its secret. Items with an access control are
    /// sealed in `derivedKey`, whose attributes are opened to evaluate it.
    case primaryKeyBound = 3

    /// True for the formats whose item key is derived from a salt, and whose boxes bind the row's `sync`.
    var derivesItemKey: Bool { self == .derivedKey || self == .primaryKeyBound }

    /// The format a sealing writes now: `primaryKeyBound`, or `derivedKey` for an item with an access control.
    static func newest(accessControlled: Bool) -> SealingFormat {
        accessControlled ? .derivedKey : .primaryKeyBound
    }

    /// The error for a row whose `sealing` column names no format this build knows: `invalidKeychain`, naming both
    /// versions, for one a newer build wrote (never opened as if it were an older one); `decode` for any other.
    static func refusal(of number: Int64, itemClass: ItemClass) -> KeychainError {
        let newestKnown = allCases.map(\.rawValue).max() ?? 0
        guard number > newestKnown else {
            return KeychainError(.decode, "an item row of class \(itemClass.rawValue) names no sealing format")
        }
        return KeychainError(
            .invalidKeychain,
            "an item row of class \(itemClass.rawValue) is sealed in format \(number), newer than this build's "
                + "\(newestKnown): open the keychain with the newer Clavis that wrote it")
    }
}

/// The identity a sealed item is bound to: a blob moved to a row with another identity fails to open.
struct RowBinding {
    var itemClass: ItemClass
    var protection: ProtectionClass
    var persistentReference: PersistentReference
    /// The row's `sync` column, bound from the derived-key format on.
    var isSynchronizable: Bool
    var format: SealingFormat
    /// The row's `primary_digest` column, bound by the primary-key-bound format only.
    var primaryDigest: [UInt8]

    /// The additional authenticated data for one part (`attributes` or `secret`) of the row.
    func authenticatedData(part: String) -> [UInt8] {
        // "clavis.item.v1:<class>:<protection>:<part>:" and the reference, appended without string interpolation;
        // each format has its own version, so a box never opens as another format's: "v2" for part nonces, "v3" for
        // derived keys, which also binds `sync` ("clavis.item.v3:<class>:<protection>:<0 or 1>:<part>:"), "v4" for
        // primary-key-bound boxes, which bind the primary-key digest too, after the reference.
        var bytes: [UInt8]
        switch format {
        case .randomNonce: bytes = Self.prefix
        case .partNonce: bytes = Self.partNoncePrefix
        case .derivedKey: bytes = Self.derivedKeyPrefix
        case .primaryKeyBound: bytes = Self.primaryKeyBoundPrefix
        }
        bytes.reserveCapacity(64 + persistentReference.bytes.count + primaryDigest.count)
        // Field by field, with no array per field: this runs for every box opened.
        bytes += itemClass.rawValue.utf8
        bytes.append(UInt8(ascii: ":"))
        bytes += protection.rawValue.utf8
        bytes.append(UInt8(ascii: ":"))
        if format.derivesItemKey {
            bytes.append(UInt8(ascii: isSynchronizable ? "1" : "0"))
            bytes.append(UInt8(ascii: ":"))
        }
        bytes += part.utf8
        bytes.append(UInt8(ascii: ":"))
        bytes += persistentReference.bytes
        if format == .primaryKeyBound { bytes += primaryDigest }
        return bytes
    }

    /// The columns the attributes leave out, restored from the row.
    var columns: StoredAttributes.RowColumns {
        StoredAttributes.RowColumns(protection: protection, isSynchronizable: isSynchronizable)
    }

    private static let prefix = Array("clavis.item.v1:".utf8)
    private static let partNoncePrefix = Array("clavis.item.v2:".utf8)
    private static let derivedKeyPrefix = Array("clavis.item.v3:".utf8)
    private static let primaryKeyBoundPrefix = Array("clavis.item.v4:".utf8)
}

/// Encrypts and decrypts items: a fresh key for every sealing, derived from its protection class's key and a random
/// salt, seals its attributes and its secret with AES-256-GCM (rows sealed before format 2 hold a random item key
/// wrapped by the class key, RFC 3394).
///
/// Holds the cipher contexts it reuses from one item to the next; not thread-safe (the engine serialises its use).
final class ItemSealer {
    private let boxes = AESGCMContext()

    /// Zeroes the last item key's schedule kept in the cipher contexts (when the keychain locks).
    func forgetKeys() {
        boxes.forgetKey()
    }

    func seal(
        attributes: [AttributeKey: AttributeValue], secret: SecureBytes, binding: RowBinding, classKey: ClassKey
    ) throws -> SealedItem {
        precondition(
            binding.format == .newest(accessControlled: attributes[.accessControl] != nil),
            "items are sealed in the newest format for their access control")
        // A fresh key for every sealing, through a fresh salt: the fixed nonces below are safe only because no key
        // seals twice (two of 16 random bytes collide after about 2^64 sealings).
        let salt = SecureRandom.bytes(count: ClassKey.saltByteCount)
        let itemKey = classKey.itemKey(salt: salt)
        let encodedAttributes = SecureBytes(StoredAttributes.encode(attributes, row: binding.columns))
        return SealedItem(
            salt: salt,
            attributes: try seal(encodedAttributes, key: itemKey, part: .attributes, binding: binding),
            secret: try seal(secret, key: itemKey, part: .secret, binding: binding))
    }

    /// The two sealed parts of a row, each with its own nonce under the item key.
    private enum Part: String {
        case attributes, secret

        var nonce: [UInt8] { self == .attributes ? Self.attributesNonce : Self.secretNonce }

        private static let attributesNonce = [UInt8](repeating: 0, count: AESGCM.nonceByteCount - 1) + [1]
        private static let secretNonce = [UInt8](repeating: 0, count: AESGCM.nonceByteCount - 1) + [2]
    }

    private func seal(_ plaintext: SecureBytes, key: SecureBytes, part: Part, binding: RowBinding) throws -> [UInt8] {
        try boxes.seal(
            plaintext, key: key, knownNonce: part.nonce,
            authenticating: binding.authenticatedData(part: part.rawValue))
    }

    private func open(_ sealed: [UInt8], key: SecureBytes, part: Part, binding: RowBinding) throws -> SecureBytes {
        let aad = binding.authenticatedData(part: part.rawValue)
        if binding.format == .randomNonce { return try boxes.open(sealed, key: key, authenticating: aad) }
        return try boxes.open(sealed, key: key, knownNonce: part.nonce, authenticating: aad)
    }

    /// The item key of a row, from its `wrapped_key` column: derived from the salt there, or unwrapped (rows sealed
    /// before format 2). A salt altered or moved gives another key, which then opens neither box.
    func itemKey(storedKey: [UInt8], classKey: ClassKey, binding: RowBinding) throws(KeychainError) -> SecureBytes {
        if binding.format.derivesItemKey {
            guard storedKey.count == ClassKey.saltByteCount else { throw Self.decodeFailure(binding) }
            return classKey.itemKey(salt: storedKey)
        }
        do {
            return try classKey.unwrap(storedKey)
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
        return try StoredAttributes.decode(plaintext.unprotectedBytes(), row: binding.columns)
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
