internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite
internal import FoundationEssentials

/// The class keys: one random 256-bit key per protection class, stored wrapped in the `keybag` table.
///
/// A class key's wrapping key is HKDF(device key ‖ passcode key, salt, "clavis.class-key.v1.<class>"), where the
/// passcode key (a memory-hard KDF of the passcode) takes part only for passcode-bound classes while a passcode is
/// set. Changing the passcode re-wraps these seven keys and touches no item.
struct Keybag {
    private let deviceKey: SecureBytes
    private let salt: [UInt8]

    /// The passcode KDF recorded in the keychain, or `nil` when no passcode is set.
    private(set) var passcodeKDF: PasscodeKDF?

    /// Loads the keybag from `connection`, creating one with fresh class keys when the keychain is new.
    init(connection: Connection, deviceKey: SecureBytes) throws {
        self.deviceKey = deviceKey
        let stored = try connection.scalar("SELECT value FROM settings WHERE name = 'keybag_salt'")?.blob
        if let stored, !stored.isEmpty {
            salt = stored
            passcodeKDF = try Self.readKDF(connection)
            return
        }
        salt = SecureRandom.bytes(count: 32)
        passcodeKDF = nil
        try connection.execute("INSERT INTO settings (name, value) VALUES ('keybag_salt', ?)", [.blob(salt)])
        for protection in ProtectionClass.allCases {
            let classKey = SecureRandom.secureBytes(count: 32)
            try store(classKey, for: protection, passcodeKey: nil, in: connection)
        }
    }

    /// A stable, non-secret identity of this keychain: SHA-256 of its random keybag salt.
    var identity: Data { Data(SHA256.hash(Array("clavis.keychain-identity.v1".utf8) + salt)) }

    /// True while a passcode is set.
    var hasPasscode: Bool { passcodeKDF != nil }

    /// Re-reads whether a passcode is set, which another process may have changed.
    mutating func refreshPasscodeState(_ connection: Connection) throws {
        passcodeKDF = try Self.readKDF(connection)
    }

    /// Unwraps the class keys of `classes`; `passcodeKey` must be given for passcode-bound classes while a
    /// passcode is set.
    ///
    /// - Throws: `authFailed` when the wrapping key is wrong (a wrong passcode, or a device key that does not
    ///   belong to this keychain).
    func unwrap(_ classes: [ProtectionClass], passcodeKey: SecureBytes?, in connection: Connection) throws
        -> [ProtectionClass: SecureBytes]
    {
        var keys: [ProtectionClass: SecureBytes] = [:]
        for protection in classes {
            guard
                let wrapped = try connection.scalar(
                    "SELECT wrapped_key FROM keybag WHERE class = ?", [.text(protection.rawValue)])?.blob
            else {
                throw KeychainError(.invalidKeychain, "keybag has no key for class \(protection.rawValue)")
            }
            let wrappingKey = try self.wrappingKey(for: protection, passcodeKey: passcodeKey)
            do {
                keys[protection] = try AESKeyWrap.unwrap(wrapped, with: wrappingKey)
            } catch {
                throw KeychainError(.authFailed, "class key \(protection.rawValue) did not unwrap")
            }
        }
        return keys
    }

    /// Derives the passcode key for `passcode` with the recorded KDF.
    func passcodeKey(for passcode: SecureBytes) throws -> SecureBytes {
        guard let passcodeKDF else { throw KeychainError(.authFailed, "no passcode is set") }
        return try Self.derive(passcode, with: passcodeKDF)
    }

    /// Re-wraps every passcode-bound class key for `newPasscode` (or for none), recording its KDF; the caller
    /// holds every class key already unwrapped in `classKeys`.
    mutating func rewrap(
        _ classKeys: [ProtectionClass: SecureBytes], newPasscode: SecureBytes?, kdf: PasscodeKDF,
        derivedKey: SecureBytes? = nil, in connection: Connection
    ) throws {
        var passcodeKey: SecureBytes?
        if let newPasscode {
            passcodeKey = try derivedKey ?? Self.derive(newPasscode, with: kdf)
            let encoded = try JSONEncoder().encode(kdf)
            try connection.execute(
                "INSERT OR REPLACE INTO settings (name, value) VALUES ('passcode_kdf', ?)", [.blob(Array(encoded))])
            passcodeKDF = kdf
        } else {
            try connection.execute("DELETE FROM settings WHERE name = 'passcode_kdf'")
            passcodeKDF = nil
        }
        for protection in ProtectionClass.allCases where protection.isPasscodeBound {
            guard let classKey = classKeys[protection] else {
                preconditionFailure("re-wrapping needs every class key open")
            }
            try store(classKey, for: protection, passcodeKey: passcodeKey, in: connection)
        }
    }

    private func store(
        _ classKey: SecureBytes, for protection: ProtectionClass, passcodeKey: SecureBytes?, in connection: Connection
    ) throws {
        let wrapped = try AESKeyWrap.wrap(classKey, with: wrappingKey(for: protection, passcodeKey: passcodeKey))
        try connection.execute(
            "INSERT OR REPLACE INTO keybag (class, wrapped_key) VALUES (?, ?)",
            [.text(protection.rawValue), .blob(wrapped)])
    }

    private func wrappingKey(for protection: ProtectionClass, passcodeKey: SecureBytes?) throws -> SecureBytes {
        var material = deviceKey
        if protection.isPasscodeBound, hasPasscode {
            guard let passcodeKey else {
                throw KeychainError(.interactionNotAllowed, "class \(protection.rawValue) needs the passcode")
            }
            material = deviceKey.appending(passcodeKey)
        }
        return try HKDFSHA256.deriveKey(
            from: material, salt: salt, info: Array("clavis.class-key.v1.\(protection.rawValue)".utf8),
            outputByteCount: 32)
    }

    /// The passcode key of `passcode` under `kdf`: the slow step (about 100 ms), which needs no keychain state.
    static func derive(_ passcode: SecureBytes, with kdf: PasscodeKDF) throws -> SecureBytes {
        do {
            return try kdf.deriveKey(from: passcode)
        } catch {
            throw KeychainError(.invalidKeychain, "the recorded passcode KDF parameters are unusable: \(error)")
        }
    }

    private static func readKDF(_ connection: Connection) throws -> PasscodeKDF? {
        guard let encoded = try connection.scalar("SELECT value FROM settings WHERE name = 'passcode_kdf'")?.blob
        else { return nil }
        do {
            return try JSONDecoder().decode(PasscodeKDF.self, from: Data(encoded))
        } catch {
            throw KeychainError(.invalidKeychain, "the recorded passcode KDF parameters do not decode")
        }
    }
}
