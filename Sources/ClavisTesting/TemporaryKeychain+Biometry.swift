import ClavisCore
import FoundationEssentials

extension TemporaryKeychain {
    /// Enrols `enrolled` (finger or face names) in the device's biometric sensor, of `kind` (`"touchID"`,
    /// `"faceID"` or `"opticID"`). Checks then follow `scheduleBiometricChecks(_:thenAlways:)`, by default a match.
    public func enrolBiometry(_ enrolled: [String] = ["right-index"], kind: String = "touchID") throws(KeychainError) {
        try changeScript { script in
            script.biometryType = kind
            script.enrolled = enrolled
            if script.whenEmpty == BiometricOutcome.cancel.rawValue && script.outcomes?.isEmpty != false {
                script.whenEmpty = BiometricOutcome.match.rawValue
            }
        }
    }

    /// Changes the enrolled set (by default, adds a finger): every `biometryCurrentSet` item becomes unreadable for
    /// good, as on Apple's devices; `biometryAny` items stay readable.
    public func changeEnrolment(to enrolled: [String]? = nil) throws(KeychainError) {
        try changeScript { script in
            script.enrolled = enrolled ?? script.enrolled + ["finger-\(script.enrolled.count + 1)"]
        }
    }

    /// What the next biometric checks do, in order, and every one after them.
    public func scheduleBiometricChecks(_ outcomes: [BiometricOutcome], thenAlways later: BiometricOutcome = .match)
        throws(KeychainError)
    {
        try changeScript { script in
            script.outcomes = outcomes.map(\.rawValue)
            script.whenEmpty = later.rawValue
        }
    }

    /// The scripted sensor's file (`ScriptedSensor`'s format).
    var scriptPath: String { folder.path + "/" + Self.scriptName }

    static let scriptName = "biometry.json"

    /// Writes the sensor's script.
    func writeScript(_ script: BiometryScript) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(script) else {
            throw KeychainError(.internal, "cannot encode the biometry script")
        }
        try folder.write(String(decoding: data, as: UTF8.self), to: Self.scriptName)
    }

    /// Changes the sensor's script, keeping what the sensor recorded in it (failures, lockout).
    private func changeScript(_ change: (inout BiometryScript) -> Void) throws(KeychainError) {
        var script =
            folder.read(Self.scriptName).flatMap { try? JSONDecoder().decode(BiometryScript.self, from: $0) }
            ?? BiometryScript()
        change(&script)
        try writeScript(script)
    }
}

/// The scripted sensor's file, as `ScriptedSensor` documents it.
struct BiometryScript: Codable {
    var biometryType: String?
    var enrolled: [String] = []
    var outcomes: [String]? = []
    var whenEmpty: String? = BiometricOutcome.cancel.rawValue
    var failures: Int?
    var lockedOut: Bool?
}
