internal import ClavisCore
internal import ClavisCrypto

/// An open protection class's key, kept keyed for the two ways an item key hangs off it: derived from a per-sealing
/// salt (`SealingFormat.derivesItemKey`, every row written now) or wrapped with RFC 3394 (rows sealed before).
///
/// A derived item key is HMAC-SHA256 under the class key of the domain tag `clavis.item-key.v3` and the salt. HMAC
/// is a pseudorandom function of its key, so keys derived from distinct salts are independent of each other and of
/// anything else the class key protects, and none can be computed without the class key: each item still has its
/// own key, as a wrapped one is, without storing it. The tag keeps these inputs apart from any other use of HMAC
/// under this key; the class key's other use, AES key wrap of older rows' keys, is a different primitive. HMAC's
/// keyed state is kept, so a derivation hashes two SHA-256 blocks: about 7,400 instructions, against 8,800 for the
/// twelve AES blocks of an unwrap.
///
/// Each keyed form is made on first use and freed, cleansed, with this object. Not thread-safe: the engine
/// serialises its use.
final class ClassKey {
    /// The length of the random salt each sealing draws (the `wrapped_key` column of a row of format 2 or 3).
    static let saltByteCount = 16

    private let key: SecureBytes
    private var wrapping: AESKeyWrapKey?
    private var deriving: HMACSHA256Key?

    private static let derivationTag = Array("clavis.item-key.v3".utf8)
    private static let detachedDerivationTag = Array("clavis.detached-key.v1".utf8)

    /// Keeps `key`, which must be 32 bytes.
    init(_ key: SecureBytes) throws(CryptoError) {
        guard key.count == AESGCM.keyByteCount else {
            throw .invalidKeySize(expected: AESGCM.keyByteCount, actual: key.count)
        }
        self.key = key
    }

    /// The item key of the sealing that drew `salt`.
    func itemKey(salt: [UInt8]) -> SecureBytes {
        precondition(salt.count == Self.saltByteCount, "an item key is derived from a \(Self.saltByteCount)-byte salt")
        if deriving == nil { deriving = HMACSHA256Key(key) }
        return deriving!.derivedKey(for: Self.derivationTag + salt)
    }

    /// The key of a box sealed outside any item (`Keychain.sealOutsideItems`) that drew `salt`: derived as an item
    /// key is, under a tag of its own, so that no box key is ever an item key.
    func detachedKey(salt: [UInt8]) -> SecureBytes {
        precondition(salt.count == Self.saltByteCount, "a box key is derived from a \(Self.saltByteCount)-byte salt")
        if deriving == nil { deriving = HMACSHA256Key(key) }
        return deriving!.derivedKey(for: Self.detachedDerivationTag + salt)
    }

    /// Unwraps an item key wrapped with RFC 3394 (a row sealed before format 2); `authenticationFailed` when the
    /// integrity check fails.
    func unwrap(_ wrapped: [UInt8]) throws(CryptoError) -> SecureBytes {
        if wrapping == nil { wrapping = try AESKeyWrapKey(key) }
        return try wrapping!.unwrap(wrapped)
    }
}
