public import ClavisCore
internal import ClavisCrypto

/// A version of a circle as the server stores it (a row of `clavis_sync.circles`): the circle's bytes with its
/// signer, and the signature.
public struct SignedSyncCircle: Sendable, Equatable {
    /// The circle's bytes followed by the signer's identifier (a member's, or the recovery member's).
    public var body: [UInt8]
    /// The signer's ECDSA signature over `body`.
    public var signature: [UInt8]

    /// A signed circle as the server gave it.
    public init(body: [UInt8], signature: [UInt8]) {
        self.body = body
        self.signature = signature
    }

    /// `circle` signed by the member `device` (or the recovery member).
    public static func sign(_ circle: SyncCircle, by device: SyncDeviceKey) throws(KeychainError) -> SignedSyncCircle {
        let body = Self.body(circle, signer: device.identifier)
        return SignedSyncCircle(body: body, signature: try device.sign(body))
    }

    /// The circle, once checked against the circle this device trusts (`trusted`): the next version, with the same
    /// recovery member, no generation going back and no earlier generation's keys changed, signed by one of the
    /// trusted circle's members or by its recovery member. With nothing trusted yet (a device joining or
    /// recovering), only version 1 is taken, and only signed by its own recovery member: a server cannot make a
    /// circle of its own that names the account's recovery member, and a joining device checks that member against
    /// the one its join code was made for.
    ///
    /// - Throws: `verifyFailed` for a version that does not follow (a replay, a skip), a signer the trusted circle
    ///   does not list, a signature that does not verify, or a change to what may not change; `decode` for a
    ///   malformed circle.
    public func verified(trusting trusted: SyncCircle?) throws(KeychainError) -> SyncCircle {
        var reader = ByteReader(body, subject: "a signed sync circle")
        let circleBytes = Array(try reader.lengthPrefixed())
        let signer = Array(try reader.lengthPrefixed())
        guard reader.isAtEnd else { throw reader.malformed("bytes after the signer") }
        let circle = try SyncCircle(encoded: circleBytes)
        let key: [UInt8]?
        if let trusted {
            guard circle.version == trusted.version + 1 else {
                throw KeychainError(
                    .verifyFailed,
                    "the server sent circle version \(circle.version) after \(trusted.version): a replay or a skip")
            }
            guard circle.recovery == trusted.recovery, circle.generation >= trusted.generation,
                trusted.keyCommitments.allSatisfy({ circle.keyCommitments[$0.key] == $0.value })
            else {
                throw KeychainError(.verifyFailed, "circle version \(circle.version) changes what no member may change")
            }
            key =
                signer == trusted.recovery.identifier
                ? trusted.recovery.signingKey : trusted.member(signer)?.signingKey
        } else {
            guard circle.version == 1 else {
                throw KeychainError(.verifyFailed, "a circle is followed from its first version")
            }
            key = signer == circle.recovery.identifier ? circle.recovery.signingKey : nil
        }
        guard let key else {
            throw KeychainError(.verifyFailed, "the circle was changed by a device that is not a member")
        }
        guard SyncDeviceKey.verify(signature, over: body, publicKey: key) else {
            throw KeychainError(
                .verifyFailed, "the circle's signature does not verify: it was changed after it was signed")
        }
        return circle
    }

    /// The circle `signed` lists, checked version by version from the first: what a device that trusts nothing yet
    /// takes; `nil` when the account has no circle.
    static func followed(_ signed: [SignedSyncCircle]) throws(KeychainError) -> SyncCircle? {
        var trusted: SyncCircle?
        for version in signed { trusted = try version.verified(trusting: trusted) }
        return trusted
    }

    private static func body(_ circle: SyncCircle, signer: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.lengthPrefixed(circle.encoded)
        writer.lengthPrefixed(signer)
        return writer.bytes
    }
}
