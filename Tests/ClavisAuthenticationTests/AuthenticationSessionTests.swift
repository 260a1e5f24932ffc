import ClavisCore
import Testing

@testable import ClavisAuthentication

/// When an evaluation counts as started, which decides between `appCancel` and `invalidContext`.
@Suite struct AuthenticationSessionTests {
    /// A session with no sensor, no prompt and no keychain: only the policies that need none of them evaluate.
    private let session = AuthenticationSession(
        authenticators: Authenticators(
            sensor: AbsentSensor(), passcode: PasscodeAuthenticator(reader: nil),
            verifier: { () throws(KeychainError) -> any PasscodeVerifier in
                throw KeychainError(.notAvailable, "no keychain in this test")
            }))

    @Test func anEvaluationAskedForBeforeInvalidateEndsWithAppCancelHoweverLateItRuns() {
        let start = session.startEvaluation()
        session.invalidate()
        #expect(throws: AuthenticationFailure.appCancel) {
            try session.evaluate(.companion, reason: "r", startedAt: start)
        }
        #expect(throws: AuthenticationFailure.appCancel) {
            try session.evaluate(flags: [.biometryAny], boundEnrolment: nil, reason: "r", startedAt: start)
        }
    }

    @Test func anEvaluationAskedForAfterInvalidateEndsWithInvalidContext() {
        session.invalidate()
        let start = session.startEvaluation()
        #expect(throws: AuthenticationFailure.invalidContext) {
            try session.evaluate(.companion, reason: "r", startedAt: start)
        }
        #expect(throws: AuthenticationFailure.invalidContext) { try session.evaluate(.companion, reason: "r") }
    }

    @Test func anEvaluationOfAValidSessionGivesItsOwnOutcome() {
        #expect(throws: AuthenticationFailure.companionNotAvailable) {
            try session.evaluate(.companion, reason: "r", startedAt: session.startEvaluation())
        }
    }
}
