public import ClavisCore
import ClavisCrypto
public import FoundationEssentials

/// A desktop's fingerprint reader through fprintd (`net.reactivated.Fprint` on the system D-Bus).
///
/// Clavis talks to fprintd through its own clients, `fprintd-list` and `fprintd-verify`, which speak D-Bus to the
/// daemon: the enrolled finger names listed for the user are hashed (SHA-256) into the enrolment state, and a
/// verification is a match when `fprintd-verify` reports `verify-match`. Fingerprint templates stay inside
/// fprintd. Chosen when both clients are on `PATH` (and `CLAVIS_BIOMETRY_SCRIPT` is not set).
public struct FprintdSensor: BiometricSensor {
    /// `fprintd-list`'s path.
    let listPath: String
    /// `fprintd-verify`'s path.
    let verifyPath: String
    /// The user whose fingers are checked.
    let user: String

    /// The sensor, when fprintd's clients are installed.
    public init?(user: String) {
        guard let list = ChildProcess.find("fprintd-list"), let verify = ChildProcess.find("fprintd-verify") else {
            return nil
        }
        self.init(listPath: list, verifyPath: verify, user: user)
    }

    /// The sensor through the fprintd clients at these paths.
    init(listPath: String, verifyPath: String, user: String) {
        self.listPath = listPath
        self.verifyPath = verifyPath
        self.user = user
    }

    /// fprintd serves fingerprint readers.
    public var kind: BiometryKind { .fingerprint }

    /// SHA-256 over the device and the sorted finger names `fprintd-list` shows for the user.
    public func enrolmentState() throws(AuthenticationFailure) -> Data {
        guard let outcome = ChildProcess.run(listPath, [user]), outcome.status == 0 else {
            throw .biometryNotAvailable
        }
        let lines = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n")
        guard lines.contains(where: { $0.hasPrefix("Device at") || $0.hasPrefix("Using device") }) else {
            throw .biometryNotAvailable
        }
        // Enrolled fingers are listed as " - #0: right-index-finger".
        let fingers = lines.compactMap { line -> String? in
            let trimmed = line.trimmed
            guard trimmed.hasPrefix("- #"), let colon = trimmed.firstIndex(of: ":") else { return nil }
            return String(trimmed[trimmed.index(after: colon)...].trimmed)
        }
        guard !fingers.isEmpty else { throw .biometryNotEnrolled }
        let device = lines.first { $0.hasPrefix("Fingerprints for user") }.map(String.init) ?? ""
        var bytes = Array(device.utf8) + [0]
        for finger in fingers.sorted() { bytes += Array(finger.utf8) + [0] }
        return Data(SHA256.hash(bytes))
    }

    /// Runs `fprintd-verify` for the user: a match, a no-match, or (for anything else) not available.
    public func verify(reason: String) throws(AuthenticationFailure) -> Data {
        let state = try enrolmentState()
        guard let outcome = ChildProcess.run(verifyPath, [user]) else { throw .biometryNotAvailable }
        let text = String(decoding: outcome.output, as: UTF8.self)
        if text.contains("verify-match") { return state }
        if text.contains("verify-no-match") { throw .authenticationFailed }
        // Disconnected, claimed by another program, or any error: biometry is not available now, so an evaluation
        // that allows it falls back to the passcode rather than ending as a cancel.
        throw .biometryNotAvailable
    }

    /// fprintd keeps no lockout of its own.
    public func passcodeSucceeded() {}
}

extension StringProtocol {
    /// The text without the spaces and tabs around it.
    fileprivate var trimmed: SubSequence {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
