package import ClavisCore
package import ClavisStore
package import ClavisSync

/// Where a device keeps what sync remembers between runs: its membership (its private keys, the circle it trusts,
/// every generation's keys) and its state (the last change read, each record's version and agreed digest), sealed
/// in its keychain beside the items (`Keychain.sealedSetting`), where no app's query reaches them.
package struct KeychainSyncState {
    /// The keychain the device syncs.
    package let keychain: Keychain

    /// The state kept in `keychain`.
    package init(keychain: Keychain) {
        self.keychain = keychain
    }

    /// The membership and state kept; `nil` when this device is in no circle.
    ///
    /// - Throws: `interactionNotAllowed` before the keychain's first unlock, `decode` for a damaged record.
    package func load() throws(KeychainError) -> (membership: SyncMembership, state: SyncState)? {
        guard case .done(let stored) = try keychain.sealedSetting(named: Self.name) else {
            throw KeychainError(.interactionNotAllowed, "the keychain has not been unlocked since it started")
        }
        guard let stored else { return nil }
        return try stored.withTemporaryArray(Self.decoded)
    }

    /// The membership and state in `bytes`.
    private static func decoded(_ bytes: [UInt8]) throws(KeychainError) -> (SyncMembership, SyncState) {
        var reader = ByteReader(bytes, subject: "the sync state")
        let membership = try SyncMembership(encoded: try reader.secret())
        let state = try SyncState(encoded: Array(try reader.lengthPrefixed()))
        guard reader.isAtEnd else { throw reader.malformed("bytes after the sync state") }
        return (membership, state)
    }

    /// Keeps `membership` and `state`.
    package func save(_ membership: SyncMembership, _ state: SyncState) throws(KeychainError) {
        var writer = ByteWriter()
        writer.secret(try membership.encoded)
        writer.lengthPrefixed(state.encoded)
        defer { writer.wipe() }
        guard case .done = try keychain.setSealedSetting(named: Self.name, to: SecureBytes(writer.bytes)) else {
            throw KeychainError(.interactionNotAllowed, "the keychain has not been unlocked since it started")
        }
    }

    /// Forgets this device's membership (it left the circle).
    package func remove() throws(KeychainError) {
        _ = try keychain.setSealedSetting(named: Self.name, to: nil)
    }

    private static let name = "sync"
}
