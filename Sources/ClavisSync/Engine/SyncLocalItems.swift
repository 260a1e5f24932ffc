public import ClavisCore

/// What a device's keychain gives the sync engine and takes from it: the seam between `SyncEngine` and the keychain
/// (clavisd's, which is the one writer of its keychain files).
public protocol SyncLocalItems {
    /// Every item that leaves this device (`sync` true, a class without `ThisDeviceOnly`, no access control bound to
    /// this device's biometry), with the tombstone of each one deleted, each with its modification time.
    func itemsToSync() throws(KeychainError) -> [SyncedItem]

    /// Applies a change another device made: stores `item` in place of the one with its class, group and primary
    /// key, keeping its modification time, or, for a tombstone, deletes that one.
    func apply(_ item: SyncedItem) throws(KeychainError)
}
