import ClavisCore
import Foundation
import Testing

@testable import ClavisAuthentication

/// The fprintd sensor reading what fprintd's own clients print; the clients here are scripts that print it.
@Suite struct FprintdSensorTests {
    let folder: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fprintd-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// A sensor whose `fprintd-list` prints `fingers` for the user and whose `fprintd-verify` prints `result`.
    private func sensor(fingers: [String], verifyResult result: String, verifyStatus: Int32 = 0) throws
        -> FprintdSensor
    {
        let listing = fingers.enumerated().map { " - #\($0.offset): \($0.element)" }.joined(separator: "\n")
        let list = """
            #!/bin/sh
            echo "found 1 devices"
            echo "Device at /net/reactivated/Fprint/Device/0"
            echo "Using device /net/reactivated/Fprint/Device/0"
            echo "Fingerprints for user $1 on Synaptics Sensors (press):"
            cat <<'LIST'
            \(listing)
            LIST

            """
        let verify = """
            #!/bin/sh
            echo "Using device /net/reactivated/Fprint/Device/0"
            echo "Verify started!"
            echo "Verify result: \(result)"
            exit \(verifyStatus)

            """
        try write(list, "fprintd-list")
        try write(verify, "fprintd-verify")
        return FprintdSensor(listPath: folder + "/fprintd-list", verifyPath: folder + "/fprintd-verify", user: "alice")
    }

    private func write(_ script: String, _ name: String) throws {
        try script.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        chmod(folder + "/" + name, 0o755)
    }

    @Test func enrolmentStateFollowsTheEnrolledFingers() throws {
        let one = try sensor(fingers: ["right-index-finger"], verifyResult: "verify-match (done)").enrolmentState()
        let same = try sensor(fingers: ["right-index-finger"], verifyResult: "verify-match (done)").enrolmentState()
        let two = try sensor(fingers: ["right-index-finger", "left-thumb"], verifyResult: "verify-match (done)")
            .enrolmentState()
        #expect(one == same)
        #expect(one != two)
        #expect(one.count == 32)
    }

    @Test func nothingEnrolledIsBiometryNotEnrolled() throws {
        #expect(throws: AuthenticationFailure.biometryNotEnrolled) {
            try sensor(fingers: [], verifyResult: "verify-no-match").enrolmentState()
        }
    }

    @Test func verifyOutcomesMapToApplesCodes() throws {
        let enrolled = ["right-index-finger"]
        let match = try sensor(fingers: enrolled, verifyResult: "verify-match (done)")
        #expect(try match.verify(reason: "r") == match.enrolmentState())
        #expect(throws: AuthenticationFailure.authenticationFailed) {
            try sensor(fingers: enrolled, verifyResult: "verify-no-match (done)").verify(reason: "r")
        }
        for failure in ["verify-disconnected", "verify-unknown-error", "Device was already claimed"] {
            #expect(throws: AuthenticationFailure.biometryNotAvailable, "\(failure)") {
                try sensor(fingers: enrolled, verifyResult: failure, verifyStatus: 1).verify(reason: "r")
            }
        }
    }
}
