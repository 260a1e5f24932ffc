import ClavisCore
public import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// The desktop's biometric sensor for one Unix user, looked for on first use: fprintd (asked about the user's
/// name) when libsystemd can be loaded, else none.
///
/// Looking means loading libsystemd, which a keychain call that never asks for biometry (most of them: a `clavis`
/// command, a read of an item without access control) should not pay for: about a millisecond of a command's start.
public final class DesktopSensor: BiometricSensor {
    /// The user whose fingers count.
    private let uid: uid_t
    /// The sensor found, once looked for.
    private let found = Mutex<(any BiometricSensor)?>(nil)

    /// The sensor for the user `uid`, not looked for yet.
    public init(uid: uid_t) {
        self.uid = uid
    }

    /// fprintd's, or `AbsentSensor`'s.
    public var kind: BiometryKind { sensor.kind }

    /// The found sensor's enrolment state.
    public func enrolmentState() throws(AuthenticationFailure) -> Data { try sensor.enrolmentState() }

    /// The found sensor's check.
    public func verify(reason: String) throws(AuthenticationFailure) -> Data { try sensor.verify(reason: reason) }

    /// Tells the found sensor.
    public func passcodeSucceeded() { sensor.passcodeSucceeded() }

    /// The found sensor's lockout.
    public var isLockedOut: Bool { sensor.isLockedOut }

    private var sensor: any BiometricSensor {
        found.withLock { found in
            if let found { return found }
            var looked: any BiometricSensor = AbsentSensor()
            if let entry = getpwuid(uid), let name = entry.pointee.pw_name,
                let fprintd = FprintdSensor(user: String(cString: name))
            {
                looked = fprintd
            }
            found = looked
            return looked
        }
    }
}
