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

    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

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
        var characters: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in secret.unprotectedBytes() {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                characters.append(Self.alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { characters.append(Self.alphabet[(buffer << (5 - bits)) & 31]) }
        var groups: [String] = []
        var start = 0
        while start < characters.count {
            groups.append(String(decoding: characters[start..<min(start + 4, characters.count)], as: UTF8.self))
            start += 4
        }
        return groups.joined(separator: "-")
    }

    /// The key the user typed: case, dashes and spaces do not matter, and O, I and L read as 0, 1 and 1.
    ///
    /// - Throws: `param` for text that is not a recovery key.
    public init(text: String) throws(KeychainError) {
        var buffer = 0
        var bits = 0
        var bytes: [UInt8] = []
        for character in text.uppercased().utf8 where character != UInt8(ascii: "-") && character != UInt8(ascii: " ") {
            let read: UInt8 =
                switch character {
                case UInt8(ascii: "O"): UInt8(ascii: "0")
                case UInt8(ascii: "I"), UInt8(ascii: "L"): UInt8(ascii: "1")
                default: character
                }
            guard let value = Self.alphabet.firstIndex(of: read) else {
                throw KeychainError(.param, "a recovery key holds only letters and digits, in groups of four")
            }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
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
