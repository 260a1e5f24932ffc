public import ClavisCore
internal import ClavisCrypto

/// A device asking to join a circle (a row of `clavis_sync.join_requests`): its member entry and the circle it
/// asks to join (named by the circle's recovery member, which never changes), signed with its own signing key, and the
/// code the user compares on both devices before a member approves it. The code covers both, so a member approves
/// only this device, and this device joins only that circle.
public struct SyncJoinRequest: Sendable, Equatable {
    /// The device as it would be listed.
    public var member: SyncCircle.Member
    /// The identifier of the recovery member of the circle the device asks to join.
    public var circle: [UInt8]
    /// The device's signature over the entry: it holds the key it names.
    public var signature: [UInt8]

    /// The request of `device`, named `name`, to join the circle whose recovery member is `circle`.
    public init(_ device: SyncDeviceKey, name: String, circle: [UInt8]) throws(KeychainError) {
        member = SyncCircle.Member(device, name: name)
        self.circle = circle
        signature = []
        signature = try device.sign(signedBytes)
    }

    /// The request as the server stores it.
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.lengthPrefixed(signedBytes)
        writer.lengthPrefixed(signature)
        return writer.bytes
    }

    /// The request `encoded` gave, once its signature verifies.
    ///
    /// - Throws: `decode` for a malformed request, `verifyFailed` for a signature its key did not make.
    public init(encoded: [UInt8]) throws(KeychainError) {
        var reader = ByteReader(encoded, subject: "a join request")
        var entry = ByteReader(Array(try reader.lengthPrefixed()), subject: "a join request's device")
        guard Array(try entry.take(Self.prefix.count)) == Self.prefix else {
            throw entry.malformed("a request of another format")
        }
        member = try SyncCircle.Member(from: &entry)
        circle = Array(try entry.lengthPrefixed())
        signature = Array(try reader.lengthPrefixed())
        guard reader.isAtEnd, entry.isAtEnd else { throw reader.malformed("bytes after the request") }
        guard SyncDeviceKey.verify(signature, over: signedBytes, publicKey: member.signingKey) else {
            throw KeychainError(.verifyFailed, "the join request's signature does not verify")
        }
    }

    /// The code both devices show: 50 bits of SHA-256 over the request's entry and circle, as "XXXXX-XXXXX"
    /// (Crockford's base32). A server that wanted its own device approved in this one's place, or this device in a
    /// circle of its own, would have to find a key whose request gives the same code: some 2^50 key generations.
    public var code: String {
        let digest = SHA256.hash(Array("clavis.sync.join-code.v1".utf8) + signedBytes)
        // Ten characters: the digest's first 50 bits.
        return CrockfordBase32.grouped(Array(CrockfordBase32.encode(Array(digest.prefix(7))).prefix(10)), by: 5)
    }

    private static let prefix = Array("clavis.sync.join.v1".utf8)

    /// The signed entry.
    private var signedBytes: [UInt8] {
        var writer = ByteWriter()
        writer.raw(Self.prefix)
        member.encode(to: &writer)
        writer.lengthPrefixed(circle)
        return writer.bytes
    }
}
