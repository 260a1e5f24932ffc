internal import ClavisCore

/// A device's signed high-water mark (a row of `clavis_sync.high_water_marks`): the last record it wrote, by
/// identifier and version, with the modification time of the item it carried, and the mark's own sequence number
/// (one more for each mark the device publishes). Every device checks each member's mark at the start of a round:
/// the server must still hold that record at that version or a newer one, or it dropped or rolled back what that
/// device wrote; and a mark older than one already seen is the server going back. Either stops the round
/// (`verifyFailed`). The mark binds the circle (its recovery member), so that one account's marks mean nothing in
/// another's.
public struct SyncHighWaterMark: Sendable, Equatable {
    /// The device that wrote the record.
    public var device: [UInt8]
    /// The record's identifier.
    public var record: [UInt8]
    /// The version it wrote.
    public var version: Int64
    /// The modification time of the item it carried, in milliseconds since 1970: a tombstone's record may leave the
    /// server once `SyncEngine.tombstoneLifetime` has passed since.
    public var modified: Int64
    /// The mark's sequence number: 1 for a device's first, one more for each after it.
    public var sequence: Int64

    /// Mark `sequence` of `device`, for version `version` of record `record`, carrying an item modified at
    /// `modified`.
    public init(device: [UInt8], record: [UInt8], version: Int64, modified: Int64, sequence: Int64) {
        self.device = device
        self.record = record
        self.version = version
        self.modified = modified
        self.sequence = sequence
    }

    /// The mark's bytes, as signed for the circle whose recovery member is `circle`.
    func signedBytes(circle: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array("clavis.sync.high-water.v1".utf8))
        writer.lengthPrefixed(circle)
        writer.lengthPrefixed(device)
        writer.lengthPrefixed(record)
        writer.int64(version)
        writer.int64(modified)
        writer.int64(sequence)
        return writer.bytes
    }

    /// The mark as stored: its bytes (without the circle, which the reader knows) and `device`'s signature over
    /// them and the circle.
    func sealed(by device: SyncDeviceKey, circle: [UInt8]) throws(KeychainError) -> (mark: [UInt8], signature: [UInt8])
    {
        var writer = ByteWriter()
        writer.lengthPrefixed(record)
        writer.int64(version)
        writer.int64(modified)
        writer.int64(sequence)
        return (writer.bytes, try device.sign(signedBytes(circle: circle)))
    }

    /// The mark `device` stored, once its signature by `signingKey` over it and `circle` verifies.
    ///
    /// - Throws: `decode` for a malformed mark, `verifyFailed` for a signature that does not verify.
    init(device: [UInt8], stored: [UInt8], signature: [UInt8], signingKey: [UInt8], circle: [UInt8])
        throws(KeychainError)
    {
        var reader = ByteReader(stored, subject: "a high-water mark")
        self.init(
            device: device, record: Array(try reader.lengthPrefixed()), version: try reader.int64(),
            modified: try reader.int64(), sequence: try reader.int64())
        guard reader.isAtEnd else { throw reader.malformed("bytes after the mark") }
        guard SyncDeviceKey.verify(signature, over: signedBytes(circle: circle), publicKey: signingKey) else {
            throw KeychainError(.verifyFailed, "a device's high-water mark does not verify: the server changed it")
        }
    }
}
