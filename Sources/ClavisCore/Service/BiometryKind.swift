/// The kind of biometric sensor (Apple's `LABiometryType`).
public enum BiometryKind: UInt8, Sendable, Hashable {
    /// No sensor.
    case none = 0
    /// A fingerprint sensor (Apple's Touch ID).
    case fingerprint = 1
    /// A face sensor (Apple's Face ID).
    case face = 2
    /// An iris sensor (Apple's Optic ID).
    case iris = 3
}
