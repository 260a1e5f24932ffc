import LocalAuthentication
import Testing

/// Files that import only LocalAuthentication see Security's and Foundation's names, and Apple's LA names.
@Suite struct LocalAuthenticationTests {
    @Test func importingLocalAuthenticationBringsSecurityAndFoundation() {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValueData as String: Data()]
        #expect((query as CFDictionary).count == 2)
        #expect(errSecAuthFailed == -25293)
    }

    @Test func contextPolicyAndErrorNamesCompile() {
        let context = LAContext()
        context.localizedReason = "Unlock your token"
        context.localizedFallbackTitle = "Use Passcode"
        context.touchIDAuthenticationAllowableReuseDuration = LATouchIDAuthenticationMaximumAllowableReuseDuration
        var error: NSError?
        let available = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
        #expect(!available)
        #expect(error?.domain == LAErrorDomain)
        #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
        #expect(context.biometryType == .none)
        #expect(LAError(.userFallback).code == LAError.userFallback)
        #expect(LAError.Code.touchIDNotAvailable == .biometryNotAvailable)
    }

    @Test func evaluatingAPolicyFailsUntilAuthenticatorsExist() async {
        do {
            _ = try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "test")
            Issue.record("evaluation should fail without authenticators")
        } catch let error as LAError {
            #expect(error.code == .passcodeNotSet)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
