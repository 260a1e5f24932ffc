public import ClavisCore
internal import ClavisCrypto

/// The keys one generation of a sync circle shares, which every member device holds and the server never sees: one
/// that names records (`SyncRecordIdentifier`) and one per protection class that may leave the device, under which
/// each record's own key is wrapped. Removing a device starts a new generation, so that it cannot read what is
/// written after.
public struct SyncKeys: Sendable {
    /// The generation: 1 for a new circle, one more at each rotation.
    public let generation: Int64
    /// The key record identifiers are computed with (HMAC-SHA256).
    let identifierKey: SecureBytes
    /// The key record keys are wrapped with (AES key wrap), per class.
    let classKeys: [ProtectionClass: SecureBytes]

    /// The classes whose items sync: Apple's classes without `ThisDeviceOnly`.
    public static let syncedClasses: [ProtectionClass] = ProtectionClass.allCases.filter { !$0.isThisDeviceOnly }

    /// Fresh random keys for `generation`.
    public static func generate(generation: Int64) -> SyncKeys {
        var classKeys: [ProtectionClass: SecureBytes] = [:]
        for protection in syncedClasses {
            classKeys[protection] = SecureRandom.secureBytes(count: AESGCM.keyByteCount)
        }
        return SyncKeys(
            generation: generation, identifierKey: SecureRandom.secureBytes(count: HMACSHA256.byteCount),
            classKeys: classKeys)
    }

    /// The next generation: new class keys, the same identifier key, so that an item keeps the name of its record
    /// (a removed device can still tell which records are the items it knew; it reads nothing written after).
    public func rotated() -> SyncKeys {
        var classKeys: [ProtectionClass: SecureBytes] = [:]
        for protection in Self.syncedClasses {
            classKeys[protection] = SecureRandom.secureBytes(count: AESGCM.keyByteCount)
        }
        return SyncKeys(generation: generation + 1, identifierKey: identifierKey, classKeys: classKeys)
    }

    /// What the circle records of these keys, so that a device takes only the keys the circle's members made:
    /// SHA-256 of a domain tag and the keys (which are random, 256 bits each, so the digest gives nothing away).
    public var commitment: [UInt8] {
        (try? encoded.withTemporaryArray { (bytes) throws(KeychainError) in
            SHA256.hash(Array("clavis.sync.keys-commitment.v1".utf8) + bytes)
        }) ?? []
    }

    /// HMAC-SHA256 of `item` (all of it, time included) under the identifier key: what a device keeps to tell that
    /// an item changed since it last agreed with the server.
    func fingerprint(of item: SyncedItem) -> [UInt8] {
        (try? item.encoded.withTemporaryArray { (bytes) throws(KeychainError) in
            HMACSHA256.authenticationCode(for: Array("clavis.sync.fingerprint.v1".utf8) + bytes, key: identifierKey)
        }) ?? []
    }

    /// The keys as one secret, for wrapping to a device or to the recovery key: the generation, the identifier key,
    /// then each synced class's key in `syncedClasses` order.
    public var encoded: SecureBytes {
        var keys = SecureBytes(withUnsafeBytes(of: generation.bigEndian) { Array($0) }).appending(identifierKey)
        for protection in Self.syncedClasses {
            keys = keys.appending(classKeys[protection] ?? SecureBytes([UInt8]()))
        }
        return keys
    }

    /// The keys `encoded` gave.
    ///
    /// - Throws: `decode` for bytes of another length.
    public init(encoded: SecureBytes) throws(KeychainError) {
        let (generation, identifierKey, classKeys) = try encoded.withTemporaryArray(Self.decoded)
        self.init(generation: generation, identifierKey: identifierKey, classKeys: classKeys)
    }

    /// The generation and keys in `bytes`.
    private static func decoded(_ bytes: [UInt8]) throws(KeychainError)
        -> (Int64, SecureBytes, [ProtectionClass: SecureBytes])
    {
        let keyCount = AESGCM.keyByteCount
        guard bytes.count == 8 + HMACSHA256.byteCount + keyCount * syncedClasses.count else {
            throw KeychainError(.decode, "sync keys of \(bytes.count) bytes")
        }
        let generation = Int64(bitPattern: bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let identifierKey = SecureBytes(bytes[8..<8 + HMACSHA256.byteCount])
        var classKeys: [ProtectionClass: SecureBytes] = [:]
        var offset = 8 + HMACSHA256.byteCount
        for protection in syncedClasses {
            classKeys[protection] = SecureBytes(bytes[offset..<offset + keyCount])
            offset += keyCount
        }
        return (generation, identifierKey, classKeys)
    }

    private init(generation: Int64, identifierKey: SecureBytes, classKeys: [ProtectionClass: SecureBytes]) {
        self.generation = generation
        self.identifierKey = identifierKey
        self.classKeys = classKeys
    }
}
