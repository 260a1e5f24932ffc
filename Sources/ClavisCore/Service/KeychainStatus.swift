public import FoundationEssentials

/// What `clavis status` shows: where the keychain is, its lock state, and who the service takes the caller for.
public struct KeychainStatus: Sendable, Hashable {
    /// How the client reaches the keychain.
    public enum Location: Sendable, Hashable {
        /// In this process, on the keychain in this folder.
        case embedded(home: String)
        /// Through the daemon listening on this socket.
        case daemon(socket: String)
    }

    /// How the client reaches the keychain.
    public var location: Location
    /// Why that location was chosen (which setting or fallback).
    public var reason: String
    /// The lock state the caller sees.
    public var lockState: LockState
    /// True while the keychain has a passcode.
    public var hasPasscode: Bool
    /// When passcode attempts are allowed again after too many wrong ones; `nil` when they are allowed now.
    public var passcodeLockout: Date?
    /// The caller's application identifier, as the service resolved it.
    public var applicationIdentifier: String
    /// The caller's access groups, the default (first) one first.
    public var accessGroups: [String]
    /// True when the service asks for passcodes through a prompt of its own (`promptForPasscode`).
    public var hasTrustedPrompt: Bool
    /// What the keychain's device key is bound to: a file, or a TPM.
    public var deviceKey: DeviceKeyBinding
    /// The item writes committed since the keychain was opened, and the flushes they took; `nil` when the service
    /// does not say.
    public var writes: WriteStatistics?

    /// Creates a status.
    public init(
        location: Location, reason: String, lockState: LockState, hasPasscode: Bool, passcodeLockout: Date?,
        applicationIdentifier: String, accessGroups: [String], hasTrustedPrompt: Bool = false,
        deviceKey: DeviceKeyBinding = .file, writes: WriteStatistics? = nil
    ) {
        self.writes = writes
        self.deviceKey = deviceKey
        self.hasTrustedPrompt = hasTrustedPrompt
        self.location = location
        self.reason = reason
        self.lockState = lockState
        self.hasPasscode = hasPasscode
        self.passcodeLockout = passcodeLockout
        self.applicationIdentifier = applicationIdentifier
        self.accessGroups = accessGroups
    }
}
