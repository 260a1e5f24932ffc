/// The authentication a caller asks `LAContext` to evaluate, with Apple's raw values.
public enum LAPolicy: Int, Sendable {
    /// Biometry only.
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, a paired watch or the device passcode.
    case deviceOwnerAuthentication = 2
    /// A paired watch.
    case deviceOwnerAuthenticationWithWatch = 3
    /// Biometry or a paired watch.
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    /// A paired watch on the wrist.
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// The kind of biometric sensor a context can use.
public enum LABiometryType: Int, Sendable {
    /// No biometric sensor.
    case none = 0
    /// A fingerprint sensor.
    case touchID = 1
    /// A face sensor.
    case faceID = 2
    /// An iris sensor.
    case opticID = 4
}

/// How long a successful biometric check may be reused at most, in seconds.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

/// A pointer through which a call reports an error, as Foundation declares it on Apple platforms.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
