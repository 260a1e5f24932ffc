package import ClavisCore
package import FoundationEssentials

// What sync reads of the keychain and writes into it (see `KeychainEngine.synchronizedItems`).
extension Keychain {
    /// Every item that leaves the device (`sync` set, a class without `ThisDeviceOnly`, no access control) in an
    /// open class, every group's, with the tombstone of each one deleted (its secret `nil`): the newest row per
    /// primary key, oldest first.
    package func synchronizedItems() throws(KeychainError) -> [Item] {
        try perform { try $0.synchronizedItems() }
    }

    /// Puts an item another device made (modification time included; `secret` `nil` for a tombstone) in place of
    /// the rows with its class and primary key; `.needsUnlock` while its class is closed.
    ///
    /// - Throws: `param` for an item that does not sync.
    package func storeSynchronized(_ item: Item, secret: SecureBytes?) throws(KeychainError) -> ServiceAnswer<Void> {
        try perform(writing: true) { try $0.storeSynchronized(item, secret: secret) }
    }

    /// Removes the tombstones of synchronizable items deleted before `cutoff` (in open classes); how many went.
    package func removeSynchronizedTombstones(deletedBefore cutoff: Date) throws(KeychainError) -> Int {
        try perform(writing: true) { try $0.removeSynchronizedTombstones(deletedBefore: cutoff) }
    }

    /// Puts many items other devices made in place, as `storeSynchronized` does each, in one transaction: the outcome
    /// of each stored (`nil`) or refused for good (an error `refusingForGood` accepts), in order, and why it stopped
    /// before the rest, if it did (`interactionNotAllowed` for a closed class); what came before stays stored.
    package func storeSynchronized(
        _ items: [(item: Item, secret: SecureBytes?)], refusingForGood: (KeychainError) -> Bool
    ) throws(KeychainError) -> (outcomes: [KeychainError?], stopped: KeychainError?) {
        try perform(writing: true) { try $0.storeSynchronized(items, refusingForGood: refusingForGood) }
    }
}
