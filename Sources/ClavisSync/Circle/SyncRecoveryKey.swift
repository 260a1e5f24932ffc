public import ClavisCore
internal import ClavisCrypto

/// The recovery key a user is shown once, when the circle is made: 256 random bits as 13 groups of four characters
/// (Crockford's base32: no I, L, O or U). The circle lists a recovery member, whose keys are sealed under a key derived
/// from it and kept on the server: every generation of sync keys is wrapped to that member as to any device, and it
/// may sign a circle change, so a device holding the recovery key alone can join when no member is left. Lose it and every device,
/// and the synced items are gone: the server holds nothing that opens them.
public struct SyncRecoveryKey: Sendable {
    /// The 32 random bytes.
    let secret: SecureBytes
    /// The AES-256 key derived from them (HKDF-SHA256).
    private let wrappingKey: SecureBytes

    /// A new random recovery key.
    public static func generate() throws(KeychainError) -> SyncRecoveryKey {
        try SyncRecoveryKey(secret: SecureRandom.secureBytes(count: 32))
    }

    private init(secret: SecureBytes) throws(KeychainError) {
        self.secret = secret
        do throws(CryptoError) {
            wrappingKey = try HKDFSHA256.deriveKey(
                from: secret, salt: Array("clavis.sync.recovery.v1".utf8), info: Array("wrapping".utf8),
                outputByteCount: 32)
        } catch {
            throw KeychainError(.internal, "the recovery key's wrapping key could not be derived")
        }
    }

    /// The key as the user writes it down: "XXXX-XXXX-…" (13 groups; the last holds the final bits).
    public var text: String {
        CrockfordBase32.grouped(CrockfordBase32.encode(secret.unprotectedBytes()), by: 4)
    }

    /// The key the user typed: case, dashes and spaces do not matter, and O, I and L read as 0, 1 and 1.
    ///
    /// - Throws: `param` for text that is not a recovery key.
    public init(text: String) throws(KeychainError) {
        guard let bytes = CrockfordBase32.decode(text) else {
            throw KeychainError(.param, "a recovery key holds only letters and digits, in groups of four")
        }
        guard bytes.count == 32 else {
            throw KeychainError(.param, "a recovery key is 52 characters; this one is not")
        }
        try self.init(secret: SecureBytes(bytes))
    }

    /// `secret` sealed under the recovery key for `purpose` (AES-256-GCM binding the purpose).
    func seal(_ secret: SecureBytes, for purpose: String) throws(KeychainError) -> [UInt8] {
        do throws(CryptoError) {
            return try AESGCM.seal(
                secret, key: wrappingKey, authenticating: Array("clavis.sync.recovery:\(purpose)".utf8))
        } catch {
            throw KeychainError(.internal, "the recovery key could not seal")
        }
    }

    /// What `seal` sealed for `purpose`.
    ///
    /// - Throws: `authFailed` for another recovery key, or a changed box.
    func open(_ sealed: [UInt8], for purpose: String) throws(KeychainError) -> SecureBytes {
        do throws(CryptoError) {
            return try AESGCM.open(
                sealed, key: wrappingKey, authenticating: Array("clavis.sync.recovery:\(purpose)".utf8))
        } catch {
            throw KeychainError(.authFailed, "this is not the account's recovery key")
        }
    }
}

extension SyncRecoveryKey {
    /// The recovery member's keys sealed under this recovery key.
    func seal(_ device: SyncDeviceKey) throws(KeychainError) -> [UInt8] {
        try seal(device.privateKeys, for: "member")
    }

    /// The recovery member's keys `seal` sealed.
    ///
    /// - Throws: `authFailed` for another recovery key.
    func openMember(_ sealed: [UInt8]) throws(KeychainError) -> SyncDeviceKey {
        try SyncDeviceKey(privateKeys: try open(sealed, for: "member"))
    }
}
