import ClavisTestSupport
import LocalAuthentication
import Testing

/// Files that import only LocalAuthentication see Security's and Foundation's names, and Apple's LA names.
@Suite(.preparedKeychain) struct LocalAuthenticationTests {
    @Test func importingLocalAuthenticationBringsSecurityAndFoundation() {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValueData as String: Data()]
        #expect((query as CFDictionary).count == 2)
        #expect(errSecAuthFailed == -25293)
        #expect(errSecUserCanceled == -128)
    }

    @Test func contextPolicyAndErrorNamesCompile() {
        let context = LAContext()
        context.localizedReason = "Unlock your token"
        context.localizedFallbackTitle = "Use Passcode"
        context.localizedCancelTitle = "Not now"
        context.touchIDAuthenticationAllowableReuseDuration = LATouchIDAuthenticationMaximumAllowableReuseDuration
        #expect(LAError(.userFallback).code == LAError.userFallback)
        #expect(LAError.Code.touchIDNotAvailable == .biometryNotAvailable)
        #expect((LAError(.notInteractive) as NSError).domain == "com.apple.LocalAuthentication")
        let codes: [(LAError.Code, Int)] = [
            (.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3), (.systemCancel, -4),
            (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7), (.biometryLockout, -8),
            (.appCancel, -9), (.invalidContext, -10), (.notInteractive, -1004),
        ]
        for (code, value) in codes { #expect(code.rawValue == value) }
    }
}
