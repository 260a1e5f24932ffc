/// What a backup holds and what was left behind.
public struct BackupSummary: Sendable, Hashable {
    /// Items written to the backup.
    public var exported: Int
    /// Items left out because they are `ThisDeviceOnly`: they never leave this device.
    public var thisDeviceOnly: Int
    /// Items left out because their access control needs an authentication to read their secret.
    public var accessControlled: Int

    /// Creates a summary.
    public init(exported: Int, thisDeviceOnly: Int, accessControlled: Int) {
        self.exported = exported
        self.thisDeviceOnly = thisDeviceOnly
        self.accessControlled = accessControlled
    }
}

/// What a restore did.
public struct RestoreSummary: Sendable, Hashable {
    /// Items added.
    public var restored: Int
    /// Items skipped because an item with the same primary key exists.
    public var alreadyPresent: Int

    /// Creates a summary.
    public init(restored: Int, alreadyPresent: Int) {
        self.restored = restored
        self.alreadyPresent = alreadyPresent
    }
}
