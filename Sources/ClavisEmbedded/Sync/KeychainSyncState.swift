package import ClavisCore
package import ClavisStore
package import ClavisSync

/// Where a device keeps what sync remembers between runs (`SyncDeviceRecord`: the server, its membership with its
/// private keys and every generation's keys, the engine's state), sealed in its keychain beside the items
/// (`Keychain.sealedSetting`), where no app's query reaches it.
package struct KeychainSyncState {
    /// The keychain the device syncs.
    package let keychain: Keychain

    /// The state kept in `keychain`.
    package init(keychain: Keychain) {
        self.keychain = keychain
    }

    /// The record kept; `nil` when this device is in no circle and asked to join none.
    ///
    /// - Throws: `interactionNotAllowed` before the keychain's first unlock, `decode` for a damaged record.
    package func load() throws(KeychainError) -> SyncDeviceRecord? {
        guard case .done(let stored) = try keychain.sealedSetting(named: Self.name) else {
            throw KeychainError(.interactionNotAllowed, "the keychain has not been unlocked since it started")
        }
        return try stored.map(SyncDeviceRecord.init(encoded:))
    }

    /// Keeps `record`.
    package func save(_ record: SyncDeviceRecord) throws(KeychainError) {
        guard case .done = try keychain.setSealedSetting(named: Self.name, to: try record.encoded) else {
            throw KeychainError(.interactionNotAllowed, "the keychain has not been unlocked since it started")
        }
    }

    /// Forgets this device's sync (it left the circle).
    package func remove() throws(KeychainError) {
        _ = try keychain.setSealedSetting(named: Self.name, to: nil)
    }

    private static let name = "sync"
}
