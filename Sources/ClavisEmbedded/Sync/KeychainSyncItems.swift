package import ClavisCore
package import ClavisStore
package import ClavisSync
import FoundationEssentials

/// A keychain as sync sees it (`SyncLocalItems`): the items that leave the device, every group's, with their
/// tombstones, and a way to apply what other devices changed. The keychain's owner (clavisd) runs the rounds; an
/// item keeps the modification time its device gave it, so every device orders changes the same way.
package struct KeychainSyncItems: SyncLocalItems {
    /// The keychain synced.
    package let keychain: Keychain

    /// The items of `keychain`.
    package init(keychain: Keychain) {
        self.keychain = keychain
    }

    package func itemsToSync() throws(KeychainError) -> [SyncedItem] {
        try keychain.synchronizedItems().map { item in
            SyncedItem(
                itemClass: item.itemClass, attributes: item.attributes, secret: item.secret,
                modified: Self.milliseconds(item.attributes[.modificationDate]))
        }
    }

    package func apply(_ item: SyncedItem) throws(KeychainError) {
        guard case .done = try keychain.storeSynchronized(Self.stored(item), secret: item.secret) else {
            throw KeychainError(.interactionNotAllowed, "the keychain is locked: the change is applied once it opens")
        }
    }

    package func apply(_ items: [SyncedItem]) throws(KeychainError) -> SyncApplied {
        let stored = items.map { (item: Self.stored($0), secret: $0.secret) }
        let result = try keychain.storeSynchronized(stored, refusingForGood: SyncEngine.refusesForGood)
        return SyncApplied(outcomes: result.outcomes, stopped: result.stopped)
    }

    /// `item` as the keychain stores it (its reference is drawn there).
    private static func stored(_ item: SyncedItem) -> Item {
        Item(
            itemClass: item.itemClass, attributes: item.attributes, secret: item.secret,
            persistentReference: PersistentReference(bytes: []))
    }

    /// A modification date in milliseconds since 1970 (0 when absent, or not a time a keychain holds).
    private static func milliseconds(_ value: AttributeValue?) -> Int64 {
        guard case .date(let date)? = value else { return 0 }
        return Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) ?? 0
    }
}
