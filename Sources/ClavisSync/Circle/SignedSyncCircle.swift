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

    /// The circle, once its signature is checked against the circle this device trusts (`trusted`): a later
    /// version, signed by one of the trusted circle's members or by its recovery member. With nothing trusted yet (a
    /// device joining), a circle signed by one of its own members or its recovery member is taken as it is: the join's
    /// code is what binds the device to the right circle.
    ///
    /// - Throws: `verifyFailed` for an older or equal version (a replay), a signer the trusted circle does not
    ///   list, or a signature that does not verify; `decode` for a malformed circle.
    public func verified(trusting trusted: SyncCircle?) throws(KeychainError) -> SyncCircle {
        var reader = ByteReader(body, subject: "a signed sync circle")
        let circleBytes = Array(try reader.lengthPrefixed())
        let signer = Array(try reader.lengthPrefixed())
        guard reader.isAtEnd else { throw reader.malformed("bytes after the signer") }
        let circle = try SyncCircle(encoded: circleBytes)
        let authority = trusted ?? circle
        if let trusted, circle.version <= trusted.version {
            throw KeychainError(
                .verifyFailed,
                "the server sent circle version \(circle.version), and this device has \(trusted.version)")
        }
        let key =
            signer == authority.recovery.identifier
            ? authority.recovery.signingKey : authority.member(signer)?.signingKey
        guard let key else {
            throw KeychainError(.verifyFailed, "the circle was changed by a device that is not a member")
        }
        guard SyncDeviceKey.verify(signature, over: body, publicKey: key) else {
            throw KeychainError(
                .verifyFailed, "the circle's signature does not verify: it was changed after it was signed")
        }
        return circle
    }

    private static func body(_ circle: SyncCircle, signer: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.lengthPrefixed(circle.encoded)
        writer.lengthPrefixed(signer)
        return writer.bytes
    }
}
