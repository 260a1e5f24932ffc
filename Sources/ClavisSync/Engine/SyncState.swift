/// What a device remembers between sync rounds: the last change it read from the server, and for each record the
/// version it last saw and a digest of the item as it last agreed with the server (a local item with another digest
/// has changed since, and goes out).
public struct SyncState: Sendable, Equatable {
    /// The last change number read.
    public var lastChange: Int64 = 0
    /// Each record's version as last read or written, by identifier.
    public var versions: [[UInt8]: Int64] = [:]
    /// A keyed digest of each record's item as last agreed (`SyncKeys.fingerprint`), by identifier.
    public var agreed: [[UInt8]: [UInt8]] = [:]
    /// The last record this device wrote: its high-water mark.
    public var lastWritten: SyncHighWaterMark?
    /// The newest sequence number seen of each other device's high-water mark, by device identifier.
    public var marksSeen: [[UInt8]: Int64] = [:]
    /// The records whose last version this device knows is a tombstone, with the delete's time (milliseconds since
    /// 1970): once it expires, any device may remove the record, and the item may begin again at version 1.
    public var tombstones: [[UInt8]: Int64] = [:]

    /// A device that has synced nothing.
    public init() {}
}
