/// What `KeychainService.purgeAccessGroups` did: how many items it deleted, from which groups, and which groups it
/// kept because a registered app still holds them.
public struct AccessGroupPurge: Sendable, Hashable {
    /// How many items were deleted.
    public var deleted: Int
    /// The groups whose items were deleted.
    public var purgedGroups: [String]
    /// The groups left alone: another registered app holds each of them.
    public var keptGroups: [String]

    /// Creates a purge's record.
    public init(deleted: Int, purgedGroups: [String], keptGroups: [String]) {
        self.deleted = deleted
        self.purgedGroups = purgedGroups
        self.keptGroups = keptGroups
    }
}
