import ClavisTestSupport
import Foundation
import LocalAuthentication
import Security
import Testing

extension AccessControlSuites {
    /// An `LAContext` given among the attributes to update (an auth SDK does this) authenticates that update.
    @Suite struct UpdateContextTests {
        @Test func aContextAmongTheChangesAuthenticatesTheUpdate() async throws {
            let service = TestKeychain.uniqueService()
            ACL.run { #expect(ACL.add(service: service, ACL.access(.devicePasscode)) == errSecSuccess) }
            ACL.script(outcomes: ["fallback"])
            ACL.answer(ACL.passcode)
            let context = try await ACL.run { () async throws -> LAContext in
                let context = LAContext()
                #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
                return context
            }
            #expect(ACL.askpassCalls.count == 1)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: "a", kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ]
            let withoutContext = [kSecValueData as String: Data("new".utf8)]
            #expect(
                ACL.run { SecItemUpdate(query as CFDictionary, withoutContext as CFDictionary) }
                    == errSecInteractionNotAllowed)
            let withContext: [String: Any] = [
                kSecValueData as String: Data("new".utf8), kSecUseAuthenticationContext as String: context,
            ]
            #expect(ACL.run { SecItemUpdate(query as CFDictionary, withContext as CFDictionary) } == errSecSuccess)
            #expect(ACL.askpassCalls.count == 1, "the context's passcode served; nobody was asked again")
            #expect(
                ACL.run { ACL.read(service: service, [kSecUseAuthenticationContext as String: context]) }.1 == "new")
            let notAContext: [String: Any] = [kSecUseAuthenticationContext as String: "context"]
            #expect(ACL.run { SecItemUpdate(query as CFDictionary, notAContext as CFDictionary) } == errSecParam)
        }
    }
}
