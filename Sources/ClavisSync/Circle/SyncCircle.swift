internal import ClavisCore
internal import ClavisCrypto

/// The trust circle of one account: the devices whose signatures its members accept, the generation of the sync keys
/// they share, and the recovery member (whose keys only the recovery key opens), versioned. Each version is signed by a member of the version
/// before it (or by the recovery key), so the server can neither add a device nor bring back an older circle.
public struct SyncCircle: Sendable, Equatable {
    /// One trusted device.
    public struct Member: Sendable, Equatable {
        /// The device's identifier (SHA-256 of its signing key).
        public var identifier: [UInt8]
        /// The name its user gave it, shown when approving and removing.
        public var name: String
        /// Its signing public key (X9.63).
        public var signingKey: [UInt8]
        /// Its encryption public key (X9.63), to which sync keys are wrapped.
        public var encryptionKey: [UInt8]

        /// The member a device key makes, named `name`.
        public init(_ device: SyncDeviceKey, name: String) {
            identifier = device.identifier
            self.name = name
            signingKey = device.publicKey
            encryptionKey = device.encryptionPublicKey
        }

        init(identifier: [UInt8], name: String, signingKey: [UInt8], encryptionKey: [UInt8]) {
            self.identifier = identifier
            self.name = name
            self.signingKey = signingKey
            self.encryptionKey = encryptionKey
        }

        func encode(to writer: inout ByteWriter) {
            writer.lengthPrefixed(identifier)
            writer.string(name)
            writer.lengthPrefixed(signingKey)
            writer.lengthPrefixed(encryptionKey)
        }

        init(from reader: inout ByteReader) throws(KeychainError) {
            identifier = Array(try reader.lengthPrefixed())
            name = try reader.string()
            signingKey = Array(try reader.lengthPrefixed())
            encryptionKey = Array(try reader.lengthPrefixed())
            guard SHA256.hash(signingKey) == identifier else {
                throw reader.malformed("a member whose identifier is not its signing key's digest")
            }
        }
    }

    /// The version: 1 for a new circle, one more at each change.
    public var version: Int64
    /// The generation of the sync keys the members share now.
    public var generation: Int64
    /// The members, ordered by identifier.
    public private(set) var members: [Member]
    /// The recovery member: sync keys are wrapped to it as to a device, it signs the first version, and it may sign a
    /// change when no member is left; its private keys are sealed under the recovery key.
    public var recovery: Member
    /// Each generation's `SyncKeys.commitment`: a device takes only keys that match, whoever wrapped them.
    public private(set) var keyCommitments: [Int64: [UInt8]]

    /// A circle of `members`.
    public init(
        version: Int64, generation: Int64, members: [Member], recovery: Member, keyCommitments: [Int64: [UInt8]]
    ) {
        self.version = version
        self.generation = generation
        self.members = members.sorted { $0.identifier.lexicographicallyPrecedes($1.identifier) }
        self.recovery = recovery
        self.keyCommitments = keyCommitments
    }

    /// The member with `identifier`, if it is one.
    public func member(_ identifier: [UInt8]) -> Member? { members.first { $0.identifier == identifier } }

    /// The members' signing keys by identifier, as `SyncRecord.open` takes them.
    public var signingKeys: [[UInt8]: [UInt8]] {
        Dictionary(members.map { ($0.identifier, $0.signingKey) }) { first, _ in first }
    }

    /// The next version with `member` added (replacing one with its identifier).
    public func adding(_ member: Member) -> SyncCircle {
        SyncCircle(
            version: version + 1, generation: generation,
            members: members.filter { $0.identifier != member.identifier } + [member], recovery: recovery,
            keyCommitments: keyCommitments)
    }

    /// The next version without the device `identifier`, with `keys` as the next generation.
    public func removing(_ identifier: [UInt8], nextKeys keys: SyncKeys) -> SyncCircle {
        var commitments = keyCommitments
        commitments[keys.generation] = keys.commitment
        return SyncCircle(
            version: version + 1, generation: keys.generation,
            members: members.filter { $0.identifier != identifier }, recovery: recovery, keyCommitments: commitments)
    }

    /// The circle's bytes, which its signature covers.
    var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array("clavis.sync.circle.v1".utf8))
        writer.int64(version)
        writer.int64(generation)
        recovery.encode(to: &writer)
        writer.uint32(UInt32(keyCommitments.count))
        for (generation, commitment) in keyCommitments.sorted(by: { $0.key < $1.key }) {
            writer.int64(generation)
            writer.lengthPrefixed(commitment)
        }
        writer.uint32(UInt32(members.count))
        for member in members { member.encode(to: &writer) }
        return writer.bytes
    }

    /// The circle `encoded` gave.
    init(encoded: [UInt8]) throws(KeychainError) {
        var reader = ByteReader(encoded, subject: "a sync circle")
        guard Array(try reader.take(21)) == Array("clavis.sync.circle.v1".utf8) else {
            throw reader.malformed("a circle of another format")
        }
        let version = try reader.int64()
        let generation = try reader.int64()
        let recovery = try Member(from: &reader)
        let commitmentCount = try reader.uint32()
        guard commitmentCount <= 100_000 else { throw reader.malformed("\(commitmentCount) key generations") }
        var commitments: [Int64: [UInt8]] = [:]
        for _ in 0..<commitmentCount { commitments[try reader.int64()] = Array(try reader.lengthPrefixed()) }
        let count = try reader.uint32()
        guard count <= 1000 else { throw reader.malformed("a circle of \(count) members") }
        var members: [Member] = []
        for _ in 0..<count { members.append(try Member(from: &reader)) }
        guard reader.isAtEnd, version > 0, generation > 0, commitments[generation] != nil else {
            throw reader.malformed("a malformed circle")
        }
        self.init(
            version: version, generation: generation, members: members, recovery: recovery,
            keyCommitments: commitments)
    }
}
