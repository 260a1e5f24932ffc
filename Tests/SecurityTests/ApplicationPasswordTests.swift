import ClavisTestSupport
import Foundation
import LocalAuthentication
import Security
import Testing

extension AccessControlSuites {
    /// `kSecAccessControlApplicationPassword` with `LAContext.setCredential(_:type:)`, and the prompt that asks for
    /// the password when no context holds one.
    @Suite struct ApplicationPasswordTests {
        private func context(password: String) -> LAContext {
            let context = LAContext()
            #expect(context.setCredential(Data(password.utf8), type: .applicationPassword))
            return context
        }

        @Test func anItemAddedThroughAContextOpensWithThatContextsPasswordOnly() {
            let service = TestKeychain.uniqueService()
            ACL.answer("CANCEL")
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                let adding = context(password: "correct horse")
                let added = addGenericPassword(
                    service: service, account: "a", data: Data("s3cret".utf8),
                    extra: [
                        kSecAttrAccessControl as String: ACL.access(.applicationPassword),
                        kSecUseAuthenticationContext as String: adding,
                    ])
                #expect(added == errSecSuccess)
                #expect(ACL.read(service: service, ACL.noUI).0 == errSecInteractionNotAllowed)
                let wrong = context(password: "correct horse battery")
                #expect(
                    ACL.read(service: service, [kSecUseAuthenticationContext as String: wrong]).0 == errSecAuthFailed)
                let right = context(password: "correct horse")
                let (status, secret) = ACL.read(service: service, [kSecUseAuthenticationContext as String: right])
                #expect(status == errSecSuccess)
                #expect(secret == "s3cret")
                // Attributes need no password, and a delete decrypts nothing.
                let attributesOnly: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecReturnAttributes as String: true,
                ]
                #expect(copyMatching(attributesOnly).status == errSecSuccess)
                let item: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                ]
                #expect(SecItemDelete(item.merging(ACL.noUI) { _, new in new } as CFDictionary) == errSecSuccess)
            }
            #expect(ACL.askpassCalls.isEmpty)
        }

        @Test func withoutACredentialThePasswordIsChosenTwiceOnAddAndAskedForOnRead() {
            let service = TestKeychain.uniqueService()
            ACL.answer("typed password")
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                #expect(ACL.add(service: service, ACL.access(.applicationPassword)) == errSecSuccess)
                let calls = ACL.askpassCalls
                #expect(calls.count == 2)
                #expect(calls.first?.contains("new application password") == true)
                #expect(calls.last?.contains("again") == true)
                ACL.answer("typed password")
                let (status, secret) = ACL.read(service: service)
                #expect(status == errSecSuccess)
                #expect(secret == "s3cret")
                #expect(ACL.askpassCalls.count == 1)
                // What the user typed is the credential a context set to the same text opens the item with.
                let typed = context(password: "typed password")
                #expect(ACL.read(service: service, [kSecUseAuthenticationContext as String: typed]).1 == "s3cret")
                ACL.answer("another password")
                #expect(ACL.read(service: service).0 == errSecAuthFailed)
                ACL.answer("CANCEL")
                #expect(ACL.read(service: service).0 == errSecUserCanceled)
                #expect(
                    ACL.add(service: TestKeychain.uniqueService(), ACL.access(.applicationPassword))
                        == errSecUserCanceled)
            }
        }

        @Test func aNewPasswordWhoseConfirmationDiffersIsRefusedAndNothingIsStored() {
            let service = TestKeychain.uniqueService()
            ACL.answer(lines: ["first", "second"])
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                #expect(ACL.add(service: service, ACL.access(.applicationPassword)) == errSecAuthFailed)
                let attributes: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                ]
                #expect(copyMatching(attributes).status == errSecItemNotFound)
            }
        }

        @Test func aTypedPasswordStaysOutOfTheContextsCredentialAndAWrongOneIsForgotten() {
            let service = TestKeychain.uniqueService()
            ACL.answer("right")
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                #expect(ACL.add(service: service, ACL.access(.applicationPassword)) == errSecSuccess)
                let context = LAContext()
                ACL.answer("wrong")
                let inContext = [kSecUseAuthenticationContext as String: context]
                #expect(ACL.read(service: service, inContext).0 == errSecAuthFailed)
                #expect(!context.isCredentialSet(.applicationPassword))
                // The wrong password was not kept: the same context asks again.
                ACL.answer("right")
                #expect(ACL.read(service: service, inContext).1 == "s3cret")
                #expect(ACL.askpassCalls.count == 1)
                // The right one lasts the reuse window: no prompt this time.
                ACL.answer("CANCEL")
                #expect(ACL.read(service: service, inContext).1 == "s3cret")
                #expect(ACL.askpassCalls.isEmpty)
                #expect(!context.isCredentialSet(.applicationPassword))
            }
        }

        @Test func anApplicationPasswordIsNoProofOfTheOwner() async throws {
            ACL.script(outcomes: ["cancel"])
            try await ACL.run { () async throws in
                let context = LAContext()
                #expect(context.setCredential(Data("pw".utf8), type: .applicationPassword))
                await #expect(throws: LAError(.userCancel)) {
                    try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
                }
            }
        }

        @Test func itemsUnderDifferentPasswordsFailTogetherOrAreSkipped() {
            let service = TestKeychain.uniqueService()
            ACL.answer("CANCEL")
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                for (account, password) in [("one", "pw1"), ("two", "pw2")] {
                    let status = addGenericPassword(
                        service: service, account: account, data: Data(account.utf8),
                        extra: [
                            kSecAttrAccessControl as String: ACL.access(.applicationPassword),
                            kSecUseAuthenticationContext as String: context(password: password),
                        ])
                    #expect(status == errSecSuccess)
                }
                var query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true,
                    kSecUseAuthenticationContext as String: context(password: "pw1"),
                ]
                #expect(copyMatching(query).status == errSecAuthFailed)
                query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
                let (status, result) = copyMatching(query)
                #expect(status == errSecSuccess)
                #expect((result as? [Data])?.map { String(decoding: $0, as: UTF8.self) } == ["one"])
            }
        }

        @Test func aContextThatMayNotAskAndHasNoPasswordGetsInteractionNotAllowed() {
            let service = TestKeychain.uniqueService()
            ACL.answer("pw")
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                let quiet = LAContext()
                quiet.interactionNotAllowed = true
                let extra: [String: Any] = [
                    kSecAttrAccessControl as String: ACL.access(.applicationPassword),
                    kSecUseAuthenticationContext as String: quiet,
                ]
                let status = addGenericPassword(service: service, account: "a", extra: extra)
                #expect(status == errSecInteractionNotAllowed)
            }
            #expect(ACL.askpassCalls.isEmpty)
        }

        @Test func itComesOnTopOfBiometryAndBothAreNeeded() {
            let service = TestKeychain.uniqueService()
            ACL.script(outcomes: ["match"])
            ACL.answer("CANCEL")
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                let flags: SecAccessControlCreateFlags = [.biometryAny, .applicationPassword]
                let adding = context(password: "pw")
                let added = addGenericPassword(
                    service: service, account: "a", data: Data("s3cret".utf8),
                    extra: [
                        kSecAttrAccessControl as String: ACL.access(flags),
                        kSecUseAuthenticationContext as String: adding,
                    ])
                #expect(added == errSecSuccess)
                // Adding asked for no biometry.
                #expect(ACL.remainingOutcomes == ["match"])
                let reading = context(password: "pw")
                let (status, secret) = ACL.read(service: service, [kSecUseAuthenticationContext as String: reading])
                #expect(status == errSecSuccess)
                #expect(secret == "s3cret")
                #expect(ACL.remainingOutcomes.isEmpty)
            }
        }

        @Test func setCredentialFollowsApplesRules() {
            let context = LAContext()
            #expect(!context.isCredentialSet(.applicationPassword))
            #expect(context.setCredential(Data("pw".utf8), type: .applicationPassword))
            #expect(context.isCredentialSet(.applicationPassword))
            #expect(context.setCredential(nil, type: .applicationPassword))
            #expect(!context.isCredentialSet(.applicationPassword))
            #expect(!context.setCredential(Data(), type: .applicationPassword))
            #expect(!context.setCredential(Data("1234".utf8), type: .smartCardPIN))
            #expect(context.setCredential(Data("pw".utf8), type: .applicationPassword))
            context.invalidate()
            #expect(!context.isCredentialSet(.applicationPassword))
            #expect(!context.setCredential(Data("pw".utf8), type: .applicationPassword))
        }
    }
}
