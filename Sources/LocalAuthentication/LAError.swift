/// The domain of `LAError`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// An authentication failure, with Apple's codes.
public struct LAError: Error, Hashable, Sendable, CustomNSError {
    /// Why authentication failed.
    public let code: Code
    /// Extra information, keyed as in `NSError`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: "\(code)"] }

    /// Creates an error with `code`.
    public init(_ code: Code) { self.code = code }

    /// The error domain, `com.apple.LocalAuthentication`.
    public static var errorDomain: String { LAErrorDomain }
    /// The code as an `NSError` code.
    public var errorCode: Int { code.rawValue }

    /// Apple's LocalAuthentication error codes.
    public enum Code: Int, Sendable {
        /// The user gave wrong credentials.
        case authenticationFailed = -1
        /// The user canceled.
        case userCancel = -2
        /// The user chose the fallback (the passcode).
        case userFallback = -3
        /// The system canceled.
        case systemCancel = -4
        /// No passcode is set.
        case passcodeNotSet = -5
        /// No biometric sensor is available.
        case biometryNotAvailable = -6
        /// No biometry is enrolled.
        case biometryNotEnrolled = -7
        /// Biometry is locked after too many failures.
        case biometryLockout = -8
        /// The application canceled.
        case appCancel = -9
        /// The context was invalidated.
        case invalidContext = -10
        /// No paired companion device is available.
        case companionNotAvailable = -11
        /// The biometric accessory is not paired.
        case biometryNotPaired = -12
        /// The biometric accessory is disconnected.
        case biometryDisconnected = -13
        /// The dimensions of an embedded interface are invalid.
        case invalidDimensions = -14
        /// Authentication needs interaction, which is not allowed.
        case notInteractive = -1004

        /// The old name of `biometryNotAvailable`.
        public static let touchIDNotAvailable = Code.biometryNotAvailable
        /// The old name of `biometryNotEnrolled`.
        public static let touchIDNotEnrolled = Code.biometryNotEnrolled
        /// The old name of `biometryLockout`.
        public static let touchIDLockout = Code.biometryLockout
        /// The old name of `companionNotAvailable`.
        public static let watchNotAvailable = Code.companionNotAvailable
    }

    /// `LAError.authenticationFailed`, matching Apple's static shorthands.
    public static var authenticationFailed: Code { .authenticationFailed }
    /// `LAError.userCancel`.
    public static var userCancel: Code { .userCancel }
    /// `LAError.userFallback`.
    public static var userFallback: Code { .userFallback }
    /// `LAError.systemCancel`.
    public static var systemCancel: Code { .systemCancel }
    /// `LAError.passcodeNotSet`.
    public static var passcodeNotSet: Code { .passcodeNotSet }
    /// `LAError.biometryNotAvailable`.
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    /// `LAError.biometryNotEnrolled`.
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    /// `LAError.biometryLockout`.
    public static var biometryLockout: Code { .biometryLockout }
    /// `LAError.appCancel`.
    public static var appCancel: Code { .appCancel }
    /// `LAError.invalidContext`.
    public static var invalidContext: Code { .invalidContext }
    /// `LAError.notInteractive`.
    public static var notInteractive: Code { .notInteractive }
}

extension LAError.Code {
    /// Errors match by code, as `catch LAError.userCancel` expects.
    public static func ~= (code: LAError.Code, error: any Error) -> Bool {
        (error as? LAError)?.code == code
    }
}
