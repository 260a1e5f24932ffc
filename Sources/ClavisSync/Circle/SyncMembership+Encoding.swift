public import ClavisCore

/// A membership as the device keeps it between runs (sealed in its keychain by the caller): its private keys, the
/// circle version it trusts (checked when it was taken, so kept without its signature) and every generation's keys.
extension SyncMembership {
    /// The membership's bytes: secret (they hold the device's private keys and the sync keys).
    public var encoded: SecureBytes {
        get throws(KeychainError) {
            var writer = ByteWriter()
            writer.byte(Self.format)
            writer.secret(try device.privateKeys)
            writer.lengthPrefixed(circle.encoded)
            writer.uint32(UInt32(keys.count))
            for (_, generationKeys) in keys.sorted(by: { $0.key < $1.key }) { writer.secret(generationKeys.encoded) }
            defer { writer.wipe() }
            return SecureBytes(writer.bytes)
        }
    }

    /// The membership `encoded` gave.
    ///
    /// - Throws: `decode` for bytes that are not one.
    public init(encoded: SecureBytes) throws(KeychainError) {
        self = try encoded.withTemporaryArray(Self.decoded)
    }

    /// The membership in `bytes`.
    private static func decoded(_ bytes: [UInt8]) throws(KeychainError) -> SyncMembership {
        var reader = ByteReader(bytes, subject: "a sync membership")
        guard try reader.byte() == Self.format else { throw reader.malformed("a membership of another format") }
        let device = try SyncDeviceKey(privateKeys: try reader.secret())
        let circle = try SyncCircle(encoded: Array(try reader.lengthPrefixed()))
        let count = try reader.uint32()
        guard count <= 100_000 else { throw reader.malformed("\(count) generations") }
        var keys: [Int64: SyncKeys] = [:]
        for _ in 0..<count {
            let generationKeys = try SyncKeys(encoded: try reader.secret())
            keys[generationKeys.generation] = generationKeys
        }
        guard reader.isAtEnd else { throw reader.malformed("bytes after the membership") }
        return SyncMembership(device: device, circle: circle, keys: keys)
    }

    /// The format this build writes and reads.
    private static let format: UInt8 = 1
}

extension SyncState {
    /// The state's bytes (record identifiers, versions and keyed digests: nothing secret in itself).
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.byte(2)
        writer.int64(lastChange)
        writer.uint32(UInt32(versions.count))
        for (identifier, version) in versions.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            writer.lengthPrefixed(identifier)
            writer.int64(version)
            writer.lengthPrefixed(agreed[identifier] ?? [])
        }
        writer.optional(lastWritten) { (writer, mark) in
            writer.lengthPrefixed(mark.device)
            writer.lengthPrefixed(mark.record)
            writer.int64(mark.version)
            writer.int64(mark.modified)
            writer.int64(mark.sequence)
        }
        writer.uint32(UInt32(marksSeen.count))
        for (device, sequence) in marksSeen.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            writer.lengthPrefixed(device)
            writer.int64(sequence)
        }
        writer.uint32(UInt32(tombstones.count))
        for (identifier, modified) in tombstones.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            writer.lengthPrefixed(identifier)
            writer.int64(modified)
        }
        return writer.bytes
    }

    /// The state `encoded` gave.
    ///
    /// - Throws: `decode` for bytes that are not one.
    public init(encoded: [UInt8]) throws(KeychainError) {
        var reader = ByteReader(encoded, subject: "a sync state")
        // Format 1 had no high-water mark.
        let format = try reader.byte()
        guard format == 1 || format == 2 else { throw reader.malformed("a state of another format") }
        self.init()
        lastChange = try reader.int64()
        let count = try reader.uint32()
        for _ in 0..<count {
            let identifier = Array(try reader.lengthPrefixed())
            versions[identifier] = try reader.int64()
            let fingerprint = Array(try reader.lengthPrefixed())
            if !fingerprint.isEmpty { agreed[identifier] = fingerprint }
        }
        if format == 2 {
            lastWritten = try reader.optional { (reader) throws(KeychainError) in
                SyncHighWaterMark(
                    device: Array(try reader.lengthPrefixed()), record: Array(try reader.lengthPrefixed()),
                    version: try reader.int64(), modified: try reader.int64(), sequence: try reader.int64())
            }
            let count = try reader.uint32()
            for _ in 0..<count { marksSeen[Array(try reader.lengthPrefixed())] = try reader.int64() }
            let deleted = try reader.uint32()
            for _ in 0..<deleted { tombstones[Array(try reader.lengthPrefixed())] = try reader.int64() }
        }
        guard reader.isAtEnd else { throw reader.malformed("bytes after the state") }
    }
}
