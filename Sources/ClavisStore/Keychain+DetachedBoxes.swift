package import ClavisCore
internal import ClavisCrypto

// Secrets the keychain seals without storing them: boxes the keychain service hands its caller to keep for it (a
// key it made that is not permanent), which only this keychain opens again.
extension Keychain {
    /// Seals `secret` under a key derived from `protection`'s class key and a fresh salt, with AES-256-GCM binding
    /// `context`: salt ‖ nonce ‖ ciphertext ‖ tag. Only this keychain opens the box, only while that class is open,
    /// and only with the same `context`; `.needsUnlock` while the class is closed.
    ///
    /// - Throws: `notAvailable` for a class, or a `needsPasscode` box, that can exist only while the keychain has a
    ///   passcode, when it has none.
    package func sealOutsideItems(
        _ secret: SecureBytes, protection: ProtectionClass, needsPasscode: Bool, context: [UInt8]
    ) throws(KeychainError) -> ServiceAnswer<[UInt8]> {
        try perform { (engine) throws -> ServiceAnswer<[UInt8]> in
            if protection == .whenPasscodeSetThisDeviceOnly || needsPasscode {
                try engine.keybag.refreshPasscodeState(engine.connection)
                guard engine.keybag.hasPasscode else {
                    throw KeychainError(
                        .notAvailable, "the key's protection or access control needs a keychain passcode")
                }
            }
            guard let classKey = try engine.openClassKey(for: protection) else { return .needsUnlock }
            let salt = SecureRandom.bytes(count: ClassKey.saltByteCount)
            let box = try AESGCM.seal(
                secret, key: classKey.detachedKey(salt: salt),
                authenticating: Self.detachedData(protection: protection, context: context))
            return .done(salt + box)
        }
    }

    /// Opens a box `sealOutsideItems` made with the same `protection` and `context`; `.needsUnlock` while the class
    /// is closed.
    ///
    /// - Throws: `decode` for a box this keychain did not seal so, or one changed since.
    package func openOutsideItems(_ box: [UInt8], protection: ProtectionClass, context: [UInt8])
        throws(KeychainError) -> ServiceAnswer<SecureBytes>
    {
        try perform { (engine) throws -> ServiceAnswer<SecureBytes> in
            guard let classKey = try engine.openClassKey(for: protection) else { return .needsUnlock }
            let saltCount = ClassKey.saltByteCount
            guard box.count >= saltCount + AESGCM.nonceByteCount + AESGCM.tagByteCount else {
                throw KeychainError(.decode, "the sealed box is too short")
            }
            do {
                return .done(
                    try AESGCM.open(
                        Array(box[saltCount...]), key: classKey.detachedKey(salt: Array(box[..<saltCount])),
                        authenticating: Self.detachedData(protection: protection, context: context)))
            } catch {
                throw KeychainError(.decode, "the sealed box was not sealed by this keychain, or was changed")
            }
        }
    }

    /// "clavis.detached.v1:<protection>:" and the context: what a box binds.
    private static func detachedData(protection: ProtectionClass, context: [UInt8]) -> [UInt8] {
        Array("clavis.detached.v1:\(protection.rawValue):".utf8) + context
    }
}
