public import FoundationEssentials

/// Which access-log entries a caller asks for (`clavis log`). The daemon adds the rule that matters most: a user sees
/// the entries of their own processes only, root sees every user's.
public struct AccessLogQuery: Sendable, Hashable {
    /// Only entries at or after this time.
    public var since: Date?
    /// Only entries that touched this item (its persistent reference).
    public var item: PersistentReference?

    /// Creates a query; with no argument, every entry the caller may see.
    public init(since: Date? = nil, item: PersistentReference? = nil) {
        self.since = since
        self.item = item
    }

    /// True when `entry` is one of those asked for.
    public func admits(_ entry: AccessLogEntry) -> Bool {
        if let since, entry.time < since { return false }
        if let item, !entry.items.contains(Data(item.bytes).base64EncodedString()) { return false }
        return true
    }
}
