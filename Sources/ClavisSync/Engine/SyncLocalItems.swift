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

    /// Applies `items` in order as `apply` does each, in as few transactions as the keychain can (one flush rather
    /// than one per item), stopping at the first that cannot be applied now; what came before stays applied.
    func apply(_ items: [SyncedItem]) throws(KeychainError) -> SyncApplied
}

/// What applying several changes did (`SyncLocalItems.apply(_:)`).
public struct SyncApplied: Sendable {
    /// For each change applied or refused for good, in order: `nil` when applied, else why it was refused. Fewer
    /// than the changes given when it stopped.
    public var outcomes: [KeychainError?]
    /// Why the change after the last outcome could not be applied now (a locked keychain, a full disk); `nil` when
    /// every change has an outcome.
    public var stopped: KeychainError?

    /// The outcomes `outcomes`, stopped for `stopped`.
    public init(outcomes: [KeychainError?], stopped: KeychainError? = nil) {
        self.outcomes = outcomes
        self.stopped = stopped
    }
}

extension SyncLocalItems {
    /// Each item on its own, through `apply(_ item:)`.
    public func apply(_ items: [SyncedItem]) throws(KeychainError) -> SyncApplied {
        var outcomes: [KeychainError?] = []
        for item in items {
            do {
                try apply(item)
                outcomes.append(nil)
            } catch  where SyncEngine.refusesForGood(error) {
                outcomes.append(error)
            } catch {
                return SyncApplied(outcomes: outcomes, stopped: error)
            }
        }
        return SyncApplied(outcomes: outcomes)
    }
}
