package import ClavisCore
internal import ClavisSQLite

// Settings the keychain's owner keeps sealed beside the items, out of every item query's reach (no access group
// names them): what sync remembers of this device. Each is a box of `sealOutsideItems` under the
// `AfterFirstUnlockThisDeviceOnly` class, bound to its name, in the `settings` table.
extension Keychain {
    /// The sealed setting `name`; `.done(nil)` when it was never set, `.needsUnlock` before the first unlock.
    ///
    /// - Throws: `decode` for a box this keychain did not seal under that name.
    package func sealedSetting(named name: String) throws(KeychainError) -> ServiceAnswer<SecureBytes?> {
        let column = Self.column(name)
        let stored = try perform { engine in
            try engine.connection.scalar("SELECT value FROM settings WHERE name = ?", [.text(column)])?.blob
        }
        guard let stored else { return .done(nil) }
        return try openOutsideItems(stored, protection: Self.protection, context: Array(column.utf8)).map { $0 }
    }

    /// Seals `value` as the setting `name`, or removes it (`nil`); `.needsUnlock` before the first unlock.
    package func setSealedSetting(named name: String, to value: SecureBytes?) throws(KeychainError)
        -> ServiceAnswer<Void>
    {
        let column = Self.column(name)
        guard let value else {
            try perform(writing: true) { engine in
                try engine.changingKeybag {
                    try engine.connection.execute("DELETE FROM settings WHERE name = ?", [.text(column)])
                }
            }
            return .done(())
        }
        return try sealOutsideItems(
            value, protection: Self.protection, needsPasscode: false, context: Array(column.utf8)
        ).map { (box) throws(KeychainError) in
            // Under the state digest of a keychain bound to a TPM, as the keybag is: a copy put back from earlier
            // is caught when the keychain opens.
            try perform(writing: true) { engine in
                try engine.changingKeybag {
                    try engine.connection.execute(
                        "INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)", [.text(column), .blob(box)])
                }
            }
        }
    }

    /// The class sealed settings are kept under: open from the first unlock, never leaving the device.
    private static let protection = ProtectionClass.afterFirstUnlockThisDeviceOnly

    /// The `settings` row of the sealed setting `name`.
    private static func column(_ name: String) -> String { "sealed." + name }
}
