import ClavisTesting
import LocalAuthentication
import Testing

/// `enrolBiometry(_:)`, `changeEnrolment(to:)`, scripted sensor outcomes, and reuse windows run out by
/// `advanceClock(by:)`.
@Suite struct BiometryTests {
    @Test func saveWithBiometrysItemIsUnreadableAfterTheEnrolmentChanges() async throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.enrolBiometry(["right-index"])
        try await keychain.run {
            try saveWithBiometry(data: Data("face-bound".utf8), key: "bio-key")
            #expect(read(account: "bio-key") == (errSecSuccess, "face-bound"), "the sensor matched")

            try keychain.changeEnrolment()
            let context = LAContext()
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Read"))
            #expect(read(account: "bio-key", context: context).0 == errSecAuthFailed)
            #expect(read(account: "bio-key").0 == errSecAuthFailed)
            // The data is asked for, so it is read (and refused) even when the app keeps no result.
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bio-key",
                kSecReturnData as String: true,
            ]
            #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecAuthFailed)
        }
    }

    @Test func theScriptedSensorPlaysTheScheduledOutcomesInOrder() async throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        let context = keychain.run { LAContext() }
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil), "nothing enrolled")

        try keychain.enrolBiometry(kind: "faceID")
        try keychain.scheduleBiometricChecks([.noMatch, .match], thenAlways: .lockout)
        try await keychain.run {
            let reason = "Sign in"
            #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
            #expect(context.biometryType == .faceID)
            await #expect(throws: LAError(.authenticationFailed)) {
                try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason)
            }
            let matched = try await LAContext().evaluatePolicy(
                .deviceOwnerAuthenticationWithBiometrics, localizedReason: reason)
            #expect(matched)
            await #expect(throws: LAError(.biometryLockout)) {
                try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason)
            }
        }
    }

    @Test func anEvaluatedContextOpensAnItemOnlyWithinItsReuseWindow() async throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.enrolBiometry()
        try await keychain.run {
            #expect(
                save(
                    "s", account: "bio", accessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly, access: .biometryAny)
                    == errSecSuccess)
            let context = LAContext()
            context.touchIDAuthenticationAllowableReuseDuration = 60
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Read"))
            try keychain.scheduleBiometricChecks([], thenAlways: .cancel)

            // Half the window (the kit's clock stands still between advances), then past its end.
            keychain.advanceClock(by: .seconds(30))
            #expect(read(account: "bio", context: context, prompting: false) == (errSecSuccess, "s"))
            keychain.advanceClock(by: .seconds(31))
            #expect(read(account: "bio", context: context, prompting: false).0 == errSecInteractionNotAllowed)
        }
    }
}
