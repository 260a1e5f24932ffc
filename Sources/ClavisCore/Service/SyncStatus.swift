public import FoundationEssentials

/// How this device's sync stands (`KeychainService.sync`).
public struct SyncStatus: Sendable, Hashable {
    /// Where the device is with its circle.
    public enum State: String, Sendable, Hashable {
        /// In no circle.
        case off
        /// Waiting for a member to approve its join request (`joinCode`).
        case joining
        /// A member that syncs.
        case syncing
        /// A member whose rounds are paused (`SyncCommand.disable(forget: false)`).
        case paused
    }

    /// A device of the circle.
    public struct Device: Sendable, Hashable {
        /// Its identifier (SHA-256 of its signing key), in hex.
        public var identifier: String
        /// The name its user gave it.
        public var name: String

        /// The device `identifier` named `name`.
        public init(identifier: String, name: String) {
            self.identifier = identifier
            self.name = name
        }
    }

    /// What the last round did.
    public struct Round: Sendable, Hashable {
        /// When it ended.
        public var ended: Date
        /// Changes from other devices applied here.
        public var applied: Int
        /// Local changes sent.
        public var sent: Int
        /// Changes from other devices that lost to a newer local one.
        public var kept: Int
        /// Changes from other devices this keychain refused for good.
        public var refused: Int

        /// A round that ended at `ended` having done so many of each.
        public init(ended: Date, applied: Int, sent: Int, kept: Int, refused: Int) {
            self.ended = ended
            self.applied = applied
            self.sent = sent
            self.kept = kept
            self.refused = refused
        }
    }

    /// Where the device is with its circle.
    public var state: State
    /// The server, as a libpq connection string (never with a password); `nil` when off.
    public var server: String?
    /// This device; `nil` when off.
    public var device: Device?
    /// The code to compare while joining.
    public var joinCode: String?
    /// The circle's devices, this one included, when a member.
    public var members: [Device]
    /// The last round that ended, successful or not.
    public var lastRound: Round?
    /// Why the last round failed; `nil` when it succeeded (or none ran).
    public var lastError: String?
    /// True when rounds run by themselves (clavisd, after each change and when the server says another device
    /// wrote); false when each runs on `SyncCommand.now` (the embedded keychain).
    public var runsInBackground: Bool
    /// The recovery key, in the answer to the `enable` that made the circle only: show it once, and keep it safe.
    public var recoveryKey: SecureBytes?

    /// A status in `state`, with the rest given or empty.
    public init(
        state: State, server: String? = nil, device: Device? = nil, joinCode: String? = nil, members: [Device] = [],
        lastRound: Round? = nil, lastError: String? = nil, runsInBackground: Bool = false,
        recoveryKey: SecureBytes? = nil
    ) {
        self.state = state
        self.server = server
        self.device = device
        self.joinCode = joinCode
        self.members = members
        self.lastRound = lastRound
        self.lastError = lastError
        self.runsInBackground = runsInBackground
        self.recoveryKey = recoveryKey
    }
}
