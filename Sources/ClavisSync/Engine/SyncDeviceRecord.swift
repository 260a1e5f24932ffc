public import ClavisCore

/// All a device keeps of its sync between runs (sealed in its keychain by the caller): the server it syncs through,
/// whether its rounds are paused, and where it stands with the circle: waiting for approval (its keys and request)
/// or a member (its membership and engine state).
public struct SyncDeviceRecord: Sendable {
    /// Where a device stands with its account's circle.
    public enum Phase: Sendable {
        /// It asked to join with `request`, made with `device`, and waits for a member's approval.
        case joining(device: SyncDeviceKey, request: SyncJoinRequest)
        /// It is a member, its rounds resuming from `state`.
        case member(SyncMembership, state: SyncState)
    }

    /// The server, as a libpq connection string.
    public var server: String
    /// True while its rounds are paused.
    public var paused: Bool
    /// Where it stands with the circle.
    public var phase: Phase

    /// A device syncing through `server`, standing at `phase`.
    public init(server: String, paused: Bool = false, phase: Phase) {
        self.server = server
        self.paused = paused
        self.phase = phase
    }

    /// The record's bytes: secret (they hold the device's private keys and the sync keys).
    public var encoded: SecureBytes {
        get throws(KeychainError) {
            var writer = ByteWriter()
            defer { writer.wipe() }
            writer.byte(Self.format)
            writer.string(server)
            writer.bool(paused)
            switch phase {
            case .joining(let device, let request):
                writer.byte(1)
                writer.secret(try device.privateKeys)
                writer.lengthPrefixed(request.encoded)
            case .member(let membership, let state):
                writer.byte(2)
                writer.secret(try membership.encoded)
                writer.lengthPrefixed(state.encoded)
            }
            return SecureBytes(writer.bytes)
        }
    }

    /// The record `encoded` gave.
    ///
    /// - Throws: `decode` for bytes that are not one.
    public init(encoded: SecureBytes) throws(KeychainError) {
        self = try encoded.withTemporaryArray(Self.decoded)
    }

    private static func decoded(_ bytes: [UInt8]) throws(KeychainError) -> SyncDeviceRecord {
        var reader = ByteReader(bytes, subject: "a device's sync record")
        guard try reader.byte() == format else { throw reader.malformed("a record of another format") }
        let server = try reader.string()
        let paused = try reader.bool()
        let phase: Phase
        switch try reader.byte() {
        case 1:
            let device = try SyncDeviceKey(privateKeys: try reader.secret())
            phase = .joining(device: device, request: try SyncJoinRequest(encoded: Array(try reader.lengthPrefixed())))
        case 2:
            let membership = try SyncMembership(encoded: try reader.secret())
            phase = .member(membership, state: try SyncState(encoded: Array(try reader.lengthPrefixed())))
        default:
            throw reader.malformed("an unknown phase")
        }
        guard reader.isAtEnd else { throw reader.malformed("bytes after the record") }
        return SyncDeviceRecord(server: server, paused: paused, phase: phase)
    }

    /// The format this build writes and reads.
    private static let format: UInt8 = 1
}
