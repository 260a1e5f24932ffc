public import ClavisCore
internal import ClavisCrypto

/// One item as the server stores it (a row of `clavis_sync.records`): its keyed identifier, its version, the device
/// that wrote it, the sealed item and the writer's signature.
///
/// The ciphertext is a format byte, the keys' generation, the item's protection class, the record's own key wrapped
/// (AES key wrap) under that class's sync key, and the item sealed with AES-256-GCM under the record key. The
/// sealing binds the identifier, version and writer, so the server cannot move a ciphertext to another record or
/// version; the signature covers all of them and the ciphertext, so it cannot change a byte; and a reader that
/// remembers the versions it applied refuses an older one sent again.
public struct SyncRecord: Sendable, Equatable {
    /// The keyed identifier (`SyncRecordIdentifier`): 32 bytes.
    public var identifier: [UInt8]
    /// The version: one more than the version the writer replaced.
    public var version: Int64
    /// The writing device's identifier (`SyncDeviceKey.identifier`).
    public var writer: [UInt8]
    /// The sealed item.
    public var ciphertext: [UInt8]
    /// The writer's ECDSA signature over the rest.
    public var signature: [UInt8]

    /// A record as the server gave it.
    public init(identifier: [UInt8], version: Int64, writer: [UInt8], ciphertext: [UInt8], signature: [UInt8]) {
        self.identifier = identifier
        self.version = version
        self.writer = writer
        self.ciphertext = ciphertext
        self.signature = signature
    }

    /// The format this build writes and reads.
    private static let format: UInt8 = 1

    /// Seals `item` as version `version` of its record under `keys`, signed by `device`.
    ///
    /// - Throws: `param` for an item whose class never leaves the device (`ThisDeviceOnly`).
    public static func seal(_ item: SyncedItem, version: Int64, keys: SyncKeys, by device: SyncDeviceKey)
        throws(KeychainError) -> SyncRecord
    {
        guard let classKey = keys.classKeys[item.protection] else {
            throw KeychainError(.param, "an item of class \(item.protection.rawValue) never leaves this device")
        }
        let identifier = SyncRecordIdentifier.of(item.itemClass, attributes: item.attributes, keys: keys)
        let header = Self.header(generation: keys.generation, protection: item.protection)
        let recordKey = SecureRandom.secureBytes(count: AESGCM.keyByteCount)
        var record = SyncRecord(
            identifier: identifier, version: version, writer: device.identifier, ciphertext: [], signature: [])
        do throws(CryptoError) {
            let wrapped = try AESKeyWrap.wrap(recordKey, with: classKey)
            let sealed = try AESGCM.seal(
                item.encoded, key: recordKey, authenticating: record.boundData(header: header))
            record.ciphertext = header + wrapped + sealed
        } catch {
            throw KeychainError(.internal, "the record could not be sealed")
        }
        record.signature = try device.sign(record.signedMessage)
        return record
    }

    /// The item this record holds, once its signature verifies with its writer's public key among `members`
    /// (device identifier to public key, as the circle lists them) and it opens under the keys of its generation.
    ///
    /// - Parameter newerThan: the version of this record the reader applied last, if any: an older or equal one is a
    ///   replay.
    /// - Throws: `verifyFailed` for a writer outside the circle, a signature that does not verify or a replayed
    ///   version; `notAvailable` for a generation the reader does not hold (written after it was removed); `decode`
    ///   for a record signed by a member that does not open.
    public func open(keys: [Int64: SyncKeys], members: [[UInt8]: [UInt8]], newerThan: Int64? = nil)
        throws(KeychainError) -> SyncedItem
    {
        guard let writerKey = members[writer] else {
            throw KeychainError(.verifyFailed, "the record was written by a device outside the circle")
        }
        guard SyncDeviceKey.verify(signature, over: signedMessage, publicKey: writerKey) else {
            throw KeychainError(
                .verifyFailed, "the record's signature does not verify: it was changed after it was written")
        }
        if let newerThan, version <= newerThan {
            throw KeychainError(
                .verifyFailed, "the server sent version \(version) of a record this device has at version \(newerThan)")
        }
        var reader = ByteReader(ciphertext, subject: "a sync record")
        guard try reader.byte() == Self.format else { throw reader.malformed("a record of another format") }
        let generation = try reader.int64()
        guard let protection = ProtectionClass(rawValue: try reader.string()) else {
            throw reader.malformed("an unknown protection class")
        }
        let headerEnd = reader.position
        guard let generationKeys = keys[generation] else {
            throw KeychainError(
                .notAvailable,
                "the record is sealed under sync keys of generation \(generation), which this device does not hold")
        }
        guard let classKey = generationKeys.classKeys[protection] else {
            throw reader.malformed("a class that never leaves a device")
        }
        let wrapped = Array(try reader.take(AESGCM.keyByteCount + 8))
        let sealed = Array(ciphertext[reader.position...])
        let item: SyncedItem
        do {
            let recordKey = try AESKeyWrap.unwrap(wrapped, with: classKey)
            let opened = try AESGCM.open(
                sealed, key: recordKey, authenticating: boundData(header: Array(ciphertext[..<headerEnd])))
            item = try SyncedItem(encoded: opened)
        } catch {
            throw KeychainError(.decode, "a record signed by a member of the circle does not open")
        }
        guard item.protection == protection,
            SyncRecordIdentifier.of(item.itemClass, attributes: item.attributes, keys: generationKeys) == identifier
        else {
            throw KeychainError(.decode, "the record's item is not the one its identifier and class name")
        }
        return item
    }

    /// The clear start of the ciphertext: format, generation and class.
    private static func header(generation: Int64, protection: ProtectionClass) -> [UInt8] {
        var writer = ByteWriter()
        writer.byte(format)
        writer.int64(generation)
        writer.string(protection.rawValue)
        return writer.bytes
    }

    /// What the item's sealing binds: the identifier, version and writer, and the ciphertext's header.
    private func boundData(header: [UInt8]) -> [UInt8] {
        describing("clavis.sync.record.v1", then: header)
    }

    /// What the writer signs: the identifier, version, writer and the whole ciphertext.
    private var signedMessage: [UInt8] {
        describing("clavis.sync.record-signature.v1", then: ciphertext)
    }

    /// `tag`, the identifier, version and writer, then `tail`, each field length-prefixed.
    private func describing(_ tag: String, then tail: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array(tag.utf8))
        writer.lengthPrefixed(identifier)
        writer.int64(version)
        writer.lengthPrefixed(self.writer)
        writer.lengthPrefixed(tail)
        return writer.bytes
    }
}
