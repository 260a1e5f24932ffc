public import ClavisCore

/// How clavisd runs: its mode, where it listens, where keychains and the app registry live.
public struct DaemonSettings: Sendable {
    /// The two ways to run the daemon.
    public enum Mode: String, Sendable {
        /// One daemon for every local user, as a dedicated system user: each user's keychain in its own folder the
        /// users cannot read. Isolates apps and users.
        case system
        /// One daemon per user, on the user's own keychain: a shared lock state and enforced groups among the
        /// user's processes, whose owner can still read the files.
        case user
    }

    /// The mode.
    public var mode: Mode
    /// The socket to listen on (when systemd passes none).
    public var socketPath: String
    /// System mode: the folder holding one keychain folder per user id. User mode: the user's keychain folder.
    public var state: String
    /// The app registry's folder.
    public var registryFolder: String
    /// Lock a keychain after it went unused this long (`--auto-lock MINUTES`); never when `nil`.
    public var autoLock: Duration?
    /// The scripted biometric sensor's file (`--biometry-script PATH`), for tests and developers; fprintd when `nil`.
    /// A client's own `CLAVIS_BIOMETRY_SCRIPT` never counts.
    public var biometryScript: String?
    /// The `pinentry` program that asks for passcodes itself (`--pinentry PROGRAM`); clients ask when `nil`.
    public var pinentry: String?
    /// The bytes one access-log file may hold before it is rotated (`--access-log-size KIB`); two files are kept.
    public var accessLogLimit: Int
    /// How a keychain the daemon creates binds its device key (`--device-key tpm|file`, `--tpm-pcrs LIST`), and
    /// where the TPM is reached (`CLAVIS_TPM_TCTI`, read by `clavisd` where it starts).
    public var deviceKeyOptions = DeviceKeyOptions.file

    /// Creates settings.
    public init(
        mode: Mode, socketPath: String, state: String, registryFolder: String, autoLock: Duration? = nil,
        biometryScript: String? = nil, pinentry: String? = nil, accessLogLimit: Int = AccessLog.defaultLimit
    ) {
        self.accessLogLimit = accessLogLimit
        self.biometryScript = biometryScript
        self.pinentry = pinentry
        self.mode = mode
        self.socketPath = socketPath
        self.state = state
        self.registryFolder = registryFolder
        self.autoLock = autoLock
    }

    /// The keychain folder of user `uid`.
    public func home(for uid: UInt32) -> KeychainHome {
        switch mode {
        case .system: KeychainHome(path: state + "/" + String(uid))
        case .user: KeychainHome(path: state)
        }
    }
}
