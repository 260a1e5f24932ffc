public import ClavisCore
import ClavisCrypto
import ClavisSystem
public import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A biometric sensor played from a JSON file, for tests and for developers rehearsing their own apps' flows.
///
/// Chosen by `CLAVIS_BIOMETRY_SCRIPT` (the file's path). The file states the enrolled set and the outcomes of the
/// next attempts; each attempt consumes the first outcome, rewriting the file under an exclusive `flock`, so several
/// processes share one script:
///
///     {
///       "biometryType": "touchID",            // or "faceID", "opticID"; default touchID
///       "enrolled": ["right-index", "left-thumb"],
///       "outcomes": ["no-match", "match"],    // "match", "no-match", "cancel", "fallback", "lockout"
///       "whenEmpty": "cancel",                // the outcome once "outcomes" is used up; default "cancel"
///       "failures": 0,                        // kept by Clavis: consecutive no-matches
///       "lockedOut": false                    // kept by Clavis: true after 5 no-matches or a "lockout"
///     }
///
/// The enrolment state is SHA-256 over the sorted enrolled names (each followed by a zero byte): changing the
/// enrolled set changes it, which invalidates `biometryCurrentSet` items. A missing or malformed file is a sensor
/// that is not available. While locked out, attempts fail with `biometryLockout` without consuming an outcome,
/// until the keychain passcode is verified.
public struct ScriptedSensor: BiometricSensor {
    /// The script file.
    public let path: String

    /// Consecutive no-matches that lock biometry out.
    public static let failuresBeforeLockout = 5

    /// A sensor played from the file at `path`.
    public init(path: String) { self.path = path }

    /// The kind the script names; `.none` when the file cannot be read.
    public var kind: BiometryKind {
        guard let script = try? transact({ _ in .success(()) }) else { return .none }
        return script.kind
    }

    /// SHA-256 of the enrolled set.
    public func enrolmentState() throws(AuthenticationFailure) -> Data {
        try transact { script in
            script.enrolled.isEmpty ? .failure(.biometryNotEnrolled) : .success(script.enrolmentState)
        }.value
    }

    /// Consumes one outcome.
    public func verify(reason: String) throws(AuthenticationFailure) -> Data {
        try transact { script in script.attempt() }.value
    }

    /// True after five no-matches in a row or a scripted `lockout`, until a passcode succeeds.
    public var isLockedOut: Bool {
        (try? transact { script in .success(script.lockedOut == true) })?.value ?? false
    }

    /// Clears the failure count and the lockout.
    public func passcodeSucceeded() {
        _ = try? transact { script in
            script.failures = 0
            script.lockedOut = false
            return .success(())
        }
    }

    /// How much of the script file is read at most: far more than any script a test or developer writes.
    private static let largestScript = 16 << 20

    /// Runs `body` on the script under an exclusive lock and writes the script back when `body` changed it.
    private func transact<Value>(_ body: (inout Script) -> Result<Value, AuthenticationFailure>)
        throws(AuthenticationFailure) -> (kind: BiometryKind, value: Value)
    {
        guard let file = try? FileDescriptor(opening: path, O_RDWR) else { throw .biometryNotAvailable }
        let descriptor = file.rawValue
        guard flock(descriptor, LOCK_EX) == 0 else { throw .biometryNotAvailable }
        guard let contents = try? FileContents.read(descriptor, limit: Self.largestScript),
            var script = try? JSONDecoder().decode(Script.self, from: Data(contents))
        else {
            throw .biometryNotAvailable
        }
        let original = script
        let outcome = body(&script)
        if script != original, let data = try? Self.encoder.encode(script) {
            _ = ftruncate(descriptor, 0)
            _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return (script.kind, try outcome.get())
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }()

    /// The file's contents.
    struct Script: Codable, Equatable {
        var biometryType: String?
        var enrolled: [String]
        var outcomes: [String]?
        var whenEmpty: String?
        var failures: Int?
        var lockedOut: Bool?

        var kind: BiometryKind {
            switch biometryType {
            case "faceID": .face
            case "opticID": .iris
            default: .fingerprint
            }
        }

        var enrolmentState: Data {
            var bytes = [UInt8]()
            for name in enrolled.sorted() {
                bytes += Array(name.utf8)
                bytes.append(0)
            }
            return Data(SHA256.hash(bytes))
        }

        /// One attempt: consumes an outcome unless biometry is locked out or nothing is enrolled.
        mutating func attempt() -> Result<Data, AuthenticationFailure> {
            if lockedOut == true { return .failure(.biometryLockout) }
            if enrolled.isEmpty { return .failure(.biometryNotEnrolled) }
            var next = whenEmpty ?? "cancel"
            if var queue = outcomes, !queue.isEmpty {
                next = queue.removeFirst()
                outcomes = queue
            }
            switch next {
            case "match":
                failures = 0
                return .success(enrolmentState)
            case "no-match":
                failures = (failures ?? 0) + 1
                if failures! >= ScriptedSensor.failuresBeforeLockout {
                    lockedOut = true
                    return .failure(.biometryLockout)
                }
                return .failure(.authenticationFailed)
            case "cancel": return .failure(.userCancel)
            case "fallback": return .failure(.userFallback)
            case "lockout":
                lockedOut = true
                return .failure(.biometryLockout)
            default: return .failure(.biometryNotAvailable)
            }
        }
    }
}
