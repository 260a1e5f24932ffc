import ClavisClient
import ClavisCore
import ClavisCrypto
import ClavisTestSupport
import Foundation
import LocalAuthentication
import Security
import Testing

/// Every test that drives the scripted sensor or the askpass program, one at a time (they share both files).
@Suite(.serialized, .preparedKeychain) struct AccessControlSuites {
    /// LAContext against the scripted sensor and the askpass program, as apps use it on Apple platforms.
    @Suite struct LAContextTests {
        @Test func canEvaluatePolicyReportsTheSensorAndItsEnrolmentState() {
            ACL.script(enrolled: ["right-index", "left-thumb"])
            ACL.run {
                let context = LAContext()
                #expect(context.biometryType == .none)  // as on Apple platforms: known after canEvaluatePolicy
                #expect(context.evaluatedPolicyDomainState == nil)
                var error: NSError?
                #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
                #expect(error == nil)
                #expect(context.biometryType == .touchID)
                #expect(context.evaluatedPolicyDomainState == ACL.enrolmentState(["left-thumb", "right-index"]))
                #expect(context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
            }
        }

        @Test func canEvaluatePolicyFailsWithoutEnrolmentSensorOrPasscode() {
            ACL.script(enrolled: [])
            var error: NSError?
            ACL.run {
                #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
                #expect(error?.domain == LAErrorDomain)
                #expect(error?.code == LAError.Code.biometryNotEnrolled.rawValue)
            }
            try! Data("not json".utf8).write(to: URL(fileURLWithPath: ACL.scriptPath))
            ACL.run {
                #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
                #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
            }
            // The shared test keychain has no passcode: nothing can be evaluated there.
            ACL.script()
            #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
            #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
            #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
            #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
        }

        @Test func biometricEvaluationMatchesFailsAndCancels() async throws {
            ACL.script(outcomes: ["match", "no-match", "cancel", "fallback"])
            try await ACL.run { () async throws in
                let context = LAContext()
                #expect(
                    try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r"))
                #expect(context.evaluatedPolicyDomainState == ACL.enrolmentState(["right-index", "left-thumb"]))
                for expected in [LAError.Code.authenticationFailed, .userCancel, .userFallback] {
                    await #expect(throws: LAError(expected)) {
                        try await LAContext().evaluatePolicy(
                            .deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                    }
                }
            }
            #expect(ACL.remainingOutcomes.isEmpty)
        }

        @Test func replyFormDeliversTheOutcome() async throws {
            ACL.script(outcomes: ["match"])
            let success = await ACL.run {
                await withCheckedContinuation { continuation in
                    LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r") {
                        success, error in
                        continuation.resume(returning: success && error == nil)
                    }
                }
            }
            #expect(success)
        }

        @Test func evaluatedPolicyDomainStateChangesWithEnrolment() async throws {
            ACL.script(enrolled: ["right-index"], outcomes: ["match"])
            let before = try await ACL.run { () async throws -> Data? in
                let context = LAContext()
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                return context.evaluatedPolicyDomainState
            }
            ACL.enrol(["right-index", "right-thumb"], outcomes: ["match"])
            let after = try await ACL.run { () async throws -> Data? in
                let context = LAContext()
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                return context.evaluatedPolicyDomainState
            }
            #expect(before != nil && after != nil && before != after)
        }

        @Test func fiveNoMatchesLockBiometryOutUntilThePasscodeSucceeds() async throws {
            ACL.script(outcomes: Array(repeating: "no-match", count: 5) + ["match"])
            ACL.answer(ACL.passcode)
            try await ACL.run { () async throws in
                for attempt in 1...5 {
                    let expected: LAError.Code = attempt < 5 ? .authenticationFailed : .biometryLockout
                    await #expect(throws: LAError(expected)) {
                        try await LAContext().evaluatePolicy(
                            .deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                    }
                }
                // Locked out: no outcome is consumed, and canEvaluatePolicy says so before any attempt.
                await #expect(throws: LAError(.biometryLockout)) {
                    try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                }
                #expect(ACL.remainingOutcomes == ["match"])
                var canError: NSError?
                #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &canError))
                #expect(canError?.code == LAError.Code.biometryLockout.rawValue)
                // deviceOwnerAuthentication falls back to the passcode, which ends the lockout.
                #expect(try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
                #expect(ACL.askpassCalls.count == 1)
                #expect(
                    try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                )
                #expect(LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
            }
        }

        @Test func invalidatingAContextDuringAnEvaluationEndsItWithAppCancel() {
            ACL.script(outcomes: ["fallback"])
            let gate = ACL.gateAskpass()
            ACL.answer("GATED " + ACL.passcode)
            defer { ACL.answer(ACL.passcode) }
            ACL.run {
                let context = LAContext()
                let done = DispatchSemaphore(value: 0)
                nonisolated(unsafe) var failure: (any Error)?
                context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r") { _, error in
                    failure = error
                    done.signal()
                }
                // The askpass program has been asked and waits at its gate: the user is still "typing".
                #expect(ACL.waitForAskpassCalls(1))
                context.invalidate()
                gate.open()
                done.wait()
                #expect((failure as? LAError)?.code == .appCancel)
                var error: NSError?
                #expect(!context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
                #expect(error?.code == LAError.Code.invalidContext.rawValue)
            }
        }

        @Test func failedBiometryFallsBackToThePasscode() async throws {
            ACL.script(outcomes: ["no-match"])
            ACL.answer(ACL.passcode)
            try await ACL.run { () async throws in
                #expect(try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in"))
            }
            #expect(ACL.askpassCalls.count == 1)
            ACL.script(outcomes: ["no-match"])
            ACL.answer("0000")
            try await ACL.run { () async throws in
                await #expect(throws: LAError(.authenticationFailed)) {
                    try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in")
                }
            }
            ACL.script(outcomes: ["no-match"])
            ACL.answer("CANCEL")
            try await ACL.run { () async throws in
                await #expect(throws: LAError(.userCancel)) {
                    try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in")
                }
            }
            #expect(ACL.askpassCalls.count == 1)
            ACL.script(outcomes: ["no-match"])
            ACL.answer(ACL.passcode)  // a right passcode clears the keychain's failure count
            #expect(
                try await ACL.run {
                    try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r")
                })
        }

        @Test func interactionNotAllowedAndInvalidateStopEvaluations() async throws {
            ACL.script(outcomes: ["match", "match"])
            try await ACL.run { () async throws in
                let quiet = LAContext()
                quiet.interactionNotAllowed = true
                await #expect(throws: LAError(.notInteractive)) {
                    try await quiet.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                }
                let context = LAContext()
                context.invalidate()
                await #expect(throws: LAError(.invalidContext)) {
                    try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                }
            }
            #expect(ACL.remainingOutcomes.count == 2)
        }

        @Test func reuseWindowLetsAnEvaluationStandWithoutAskingAgain() async throws {
            ACL.script(outcomes: ["match", "match"])
            // The contexts made here time their window on a clock the test moves.
            let clock = KeychainClock.adjustable()
            try await ACL.run { () async throws in
                var configuration = ClavisConfiguration.current
                configuration.clock = clock
                try await ClavisConfiguration.withConfiguration(configuration) { () async throws in
                    try await evaluateWithinAndPastTheWindow(clock)
                }
            }
        }

        /// One evaluation stands for the next while the 1-second window lasts, and not once it has passed.
        private func evaluateWithinAndPastTheWindow(_ clock: KeychainClock) async throws {
            do {
                let context = LAContext()
                context.touchIDAuthenticationAllowableReuseDuration = 1
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                #expect(ACL.remainingOutcomes.count == 1)
                clock.advance(by: .milliseconds(999))
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                #expect(ACL.remainingOutcomes.count == 1, "still within the second")
                clock.advance(by: .milliseconds(2))
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                #expect(ACL.remainingOutcomes.isEmpty)
                context.touchIDAuthenticationAllowableReuseDuration = 10_000
                #expect(
                    context.touchIDAuthenticationAllowableReuseDuration
                        == LATouchIDAuthenticationMaximumAllowableReuseDuration)
            }
        }

        @Test func evaluateAccessControlAsksForWhatTheFlagsNeed() async throws {
            ACL.script(outcomes: ["match"])
            ACL.answer(ACL.passcode)
            try await ACL.run { () async throws in
                let both = ACL.access([.biometryAny, .and, .devicePasscode])
                #expect(try await LAContext().evaluateAccessControl(both, operation: .useItem, localizedReason: "r"))
            }
            #expect(ACL.remainingOutcomes.isEmpty)
            #expect(ACL.askpassCalls.count == 1)
            ACL.script(outcomes: ["match"])
            try await ACL.run { () async throws in
                await #expect(throws: LAError(.companionNotAvailable)) {
                    try await LAContext().evaluateAccessControl(
                        ACL.access(.watch), operation: .useItem, localizedReason: "r")
                }
            }
        }
    }

    /// SecItem calls on items with an access control.
    @Suite struct ItemTests {
        @Test func seedsSaveWithBiometryStoresAnItemThatNeedsTheCurrentBiometry() async throws {
            let account = "bio-\(UUID().uuidString)"
            ACL.script(enrolled: ["right-index"], outcomes: [])
            try ACL.run { try saveWithBiometry(data: Data("token".utf8), key: account) }
            func read(_ extra: [String: Any]) -> (OSStatus, String?) {
                var query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                    kSecReturnData as String: true,
                ]
                query.merge(extra) { _, new in new }
                let (status, result) = ACL.run { copyMatching(query) }
                return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
            }
            // Without authentication the secret is out of reach; its attributes are not.
            #expect(read(ACL.noUI).0 == errSecInteractionNotAllowed)
            let attributes = ACL.run {
                copyMatching([
                    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                    kSecReturnAttributes as String: true,
                    kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
                ])
            }
            #expect(attributes.status == errSecSuccess)
            // A context evaluated by the sensor opens it, without asking again.
            ACL.script(enrolled: ["right-index"], outcomes: ["match"])
            let context = try await ACL.run { () async throws -> LAContext in
                let context = LAContext()
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                return context
            }
            let opened = read([
                kSecUseAuthenticationContext as String: context,
                kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ])
            #expect(opened.0 == errSecSuccess && opened.1 == "token")
            // Without a context the call asks the sensor itself.
            ACL.enrol(["right-index"], outcomes: ["match"])
            #expect(read([:]).1 == "token")
            // A changed enrolment makes it unreadable for good, even with a fresh match.
            ACL.enrol(["right-index", "left-index"], outcomes: ["match", "match"])
            let evaluated = try await ACL.run { () async throws -> LAContext in
                let context = LAContext()
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                return context
            }
            #expect(read([kSecUseAuthenticationContext as String: evaluated]).0 == errSecAuthFailed)
            #expect(read([:]).0 == errSecAuthFailed)
            #expect(ACL.remainingOutcomes == ["match"])  // the invalidated item never asked the sensor
        }

        @Test func seedsSaveWithBiometryReplacesTheItemAfterOneMatchForTheDelete() throws {
            let account = "bio-\(UUID().uuidString)"
            ACL.script(enrolled: ["right-index"], outcomes: [])
            try ACL.run { try saveWithBiometry(data: Data("token".utf8), key: account) }
            // The delete in saveWithBiometry is guarded like a read: it asks the sensor once.
            ACL.enrol(["right-index"], outcomes: ["match"])
            try ACL.run { try saveWithBiometry(data: Data("token2".utf8), key: account) }
            #expect(ACL.remainingOutcomes.isEmpty)
            ACL.enrol(["right-index"], outcomes: ["match"])
            let (status, result) = ACL.run {
                copyMatching([
                    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                    kSecReturnData as String: true,
                ])
            }
            #expect(status == errSecSuccess)
            #expect((result as? Data).map { String(decoding: $0, as: UTF8.self) } == "token2")
        }

        @Test func seedsSaveWithBiometryReplacesAnItemItsEnrolmentChangeInvalidated() throws {
            let account = "bio-\(UUID().uuidString)"
            ACL.script(enrolled: ["right-index"], outcomes: [])
            try ACL.run { try saveWithBiometry(data: Data("old".utf8), key: account) }
            // After the enrolled set changes the old item can never be read; one match under the new set lets the
            // seed's delete remove it, so the add that follows stores the new token.
            ACL.enrol(["right-index", "left-index"], outcomes: ["match", "match"])
            try ACL.run { try saveWithBiometry(data: Data("new".utf8), key: account) }
            let (status, result) = ACL.run {
                copyMatching([
                    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                    kSecReturnData as String: true,
                ])
            }
            #expect(status == errSecSuccess)
            #expect((result as? Data).map { String(decoding: $0, as: UTF8.self) } == "new")
        }

        @Test func aContextWhosePasscodeAnotherKeychainCheckedOpensNothingHere() async throws {
            let service = TestKeychain.uniqueService()
            ACL.run { #expect(ACL.add(service: service, ACL.access(.devicePasscode)) == errSecSuccess) }
            // Another keychain whose passcode the caller knows.
            let otherHome = try makeTemporaryFolder("clavis-other") + "/home"
            try withKeychainHome(otherHome) {
                try KeychainClient().setPasscode(
                    SecureBytes(Data("0000".utf8)), current: nil, strength: .cheapForTesting)
            }
            ACL.script(outcomes: ["fallback"])
            ACL.answer("0000")
            defer { ACL.answer(ACL.passcode) }
            let context = try await withKeychainHome(otherHome) { () async throws -> LAContext in
                let context = LAContext()
                #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "r"))
                return context
            }
            let read = ACL.run {
                ACL.read(
                    service: service,
                    [
                        kSecUseAuthenticationContext as String: context,
                        kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
                    ])
            }
            #expect(read.0 == errSecInteractionNotAllowed)
        }

        @Test func aLockedKeychainAsksForItsPasscodeThenAnswers() throws {
            _ = ACL.home  // the test process's environment: entitlements, askpass program, sensor
            let home = try makeTemporaryFolder("clavis-locked") + "/home"
            defer { ACL.answer(ACL.passcode) }
            try withKeychainHome(home) {
                try KeychainClient().setPasscode(
                    SecureBytes(Data("2468".utf8)), current: nil, strength: .cheapForTesting)
                #expect(addGenericPassword(service: "locked", account: "a", data: Data("s".utf8)) == errSecSuccess)
                try KeychainClient().lock()
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "locked",
                    kSecReturnData as String: true,
                ]
                var noUI = query
                noUI[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail
                #expect(copyMatching(noUI).0 == errSecInteractionNotAllowed)
                ACL.answer("CANCEL")
                #expect(copyMatching(query).0 == errSecUserCanceled)
                ACL.answer("1357")
                #expect(copyMatching(query).0 == errSecAuthFailed)
                ACL.answer("2468")
                let (status, result) = copyMatching(query)
                #expect(status == errSecSuccess)
                #expect(result as? Data == Data("s".utf8))
                #expect(ACL.askpassCalls == ["1|password to unlock keychain: "])
                #expect(copyMatching(noUI).0 == errSecSuccess, "unlocked for the rest of the process")
            }
        }

        @Test func userPresenceOpensWithBiometryOrThePasscode() {
            let service = TestKeychain.uniqueService()
            ACL.run { #expect(ACL.add(service: service, ACL.access(.userPresence)) == errSecSuccess) }
            ACL.script(outcomes: ["match"])
            #expect(ACL.run { ACL.read(service: service) }.1 == "s3cret")
            ACL.script(outcomes: ["no-match"])
            ACL.answer(ACL.passcode)
            #expect(ACL.run { ACL.read(service: service) }.1 == "s3cret")
            #expect(ACL.askpassCalls.count == 1)
        }

        @Test func biometryAnySurvivesAnEnrolmentChangeAndCurrentSetDoesNot() {
            let service = TestKeychain.uniqueService()
            ACL.script(enrolled: ["right-index"])
            ACL.run {
                #expect(ACL.add(service: service, account: "any", ACL.access(.biometryAny)) == errSecSuccess)
                #expect(ACL.add(service: service, account: "current", ACL.access(.biometryCurrentSet)) == errSecSuccess)
            }
            ACL.enrol(["right-index", "left-index"], outcomes: ["match", "match"])
            #expect(ACL.run { ACL.read(service: service, account: "any") }.1 == "s3cret")
            #expect(ACL.run { ACL.read(service: service, account: "current") }.0 == errSecAuthFailed)
            // A failed biometric check on a biometry-only item: errSecAuthFailed, no passcode offered.
            ACL.script(enrolled: ["right-index"], outcomes: ["no-match"])
            ACL.answer(ACL.passcode)
            #expect(ACL.run { ACL.read(service: service, account: "any") }.0 == errSecAuthFailed)
            #expect(ACL.askpassCalls.isEmpty)
        }

        @Test func devicePasscodeNeedsThePasscodeAndNotBiometry() throws {
            let service = TestKeychain.uniqueService()
            ACL.run { #expect(ACL.add(service: service, ACL.access(.devicePasscode)) == errSecSuccess) }
            ACL.script(outcomes: ["match"])
            ACL.answer(ACL.passcode)
            #expect(
                ACL.run { ACL.read(service: service, [kSecUseOperationPrompt as String: "Show the token"]) }.1
                    == "s3cret")
            #expect(ACL.remainingOutcomes == ["match"])
            // The askpass program gets the prompt as its only argument, never the passcode.
            #expect(ACL.askpassCalls.count == 1)
            #expect(ACL.askpassCalls.first?.hasPrefix("1|Show the token") == true)
            // Without kSecUseOperationPrompt, the context's localizedReason is shown.
            ACL.answer(ACL.passcode)
            ACL.run {
                let context = LAContext()
                context.localizedReason = "Open the vault"
                #expect(ACL.read(service: service, [kSecUseAuthenticationContext as String: context]).1 == "s3cret")
            }
            #expect(ACL.askpassCalls.first?.hasPrefix("1|Open the vault") == true)
            #expect(ACL.askpassCalls.allSatisfy { !$0.contains(ACL.passcode) })
            ACL.answer("CANCEL")
            #expect(ACL.run { ACL.read(service: service) }.0 == errSecUserCanceled)
            ACL.answer("0000")
            let (status, _) = ACL.run { ACL.read(service: service) }
            #expect(status == errSecAuthFailed)
            let message = SecCopyErrorMessageString(status, nil) as String? ?? ""
            #expect(!message.contains("0000"))
            ACL.answer(ACL.passcode)
            #expect(ACL.run { ACL.read(service: service) }.1 == "s3cret")
        }

        @Test func orAndAndCombineConditions() async throws {
            let service = TestKeychain.uniqueService()
            ACL.run {
                #expect(
                    ACL.add(service: service, account: "or", ACL.access([.biometryAny, .or, .devicePasscode])) == 0)
                #expect(
                    ACL.add(service: service, account: "and", ACL.access([.biometryAny, .and, .devicePasscode])) == 0)
            }
            // Either condition opens the .or item.
            ACL.script(outcomes: ["match"])
            #expect(ACL.run { ACL.read(service: service, account: "or") }.1 == "s3cret")
            ACL.script(outcomes: ["cancel"])
            #expect(ACL.run { ACL.read(service: service, account: "or") }.0 == errSecUserCanceled)
            ACL.script(outcomes: ["no-match"])
            ACL.answer(ACL.passcode)
            #expect(ACL.run { ACL.read(service: service, account: "or") }.1 == "s3cret")
            // The .and item needs both: a context with only biometry is not enough without asking.
            ACL.script(outcomes: ["match"])
            let context = try await ACL.run { () async throws -> LAContext in
                let context = LAContext()
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "r")
                return context
            }
            let noUI: [String: Any] = [
                kSecUseAuthenticationContext as String: context,
                kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ]
            #expect(ACL.run { ACL.read(service: service, account: "and", noUI) }.0 == errSecInteractionNotAllowed)
            ACL.answer(ACL.passcode)
            #expect(
                ACL.run {
                    ACL.read(service: service, account: "and", [kSecUseAuthenticationContext as String: context])
                }.1 == "s3cret")
            #expect(ACL.askpassCalls.count == 1)
        }

        @Test func invalidCombinationsAreRefused() {
            var error: Unmanaged<CFError>?
            for flags: SecAccessControlCreateFlags in [
                [.biometryAny, .devicePasscode], [.biometryAny, .or, .and, .devicePasscode],
                SecAccessControlCreateFlags(rawValue: 1 << 20),
            ] {
                #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, &error) == nil)
                let nsError = error?.takeRetainedValue() as NSError?
                #expect(nsError?.code == Int(errSecParam))
                error = nil
            }
            let service = TestKeychain.uniqueService()
            ACL.run {
                #expect(ACL.add(service: service, ACL.access([.privateKeyUsage, .userPresence])) == errSecParam)
            }
        }

        @Test func watchIsNeverSatisfiedOnLinux() {
            let service = TestKeychain.uniqueService()
            ACL.run { #expect(ACL.add(service: service, ACL.access(.watch)) == errSecSuccess) }
            #expect(ACL.run { ACL.read(service: service) }.0 == errSecAuthFailed)
        }

        @Test func skipLeavesProtectedItemsOutOfCopyMatchingOnly() {
            let service = TestKeychain.uniqueService()
            ACL.run {
                #expect(ACL.add(service: service, account: "open", ACL.access([])) == errSecSuccess)
                #expect(ACL.add(service: service, account: "guarded", ACL.access(.devicePasscode)) == errSecSuccess)
                let (status, result) = copyMatching([
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecReturnAttributes as String: true, kSecReturnData as String: true,
                    kSecMatchLimit as String: kSecMatchLimitAll,
                    kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
                ])
                #expect(status == errSecSuccess)
                let accounts = (result as? [[String: Any]] ?? []).compactMap {
                    $0[kSecAttrAccount as String] as? String
                }
                #expect(accounts == ["open"])
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
                ]
                #expect(SecItemDelete(query as CFDictionary) == errSecParam)
                #expect(
                    SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "x"] as CFDictionary) == errSecParam)
                #expect(
                    addGenericPassword(
                        service: service, account: "new",
                        extra: [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]) == errSecParam)
            }
        }

        @Test func updateAndDeleteAreGuardedLikeRead() {
            let service = TestKeychain.uniqueService()
            let match: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            ]
            let noUI = match.merging(ACL.noUI) { _, new in new }
            let change = [kSecValueData as String: Data("new".utf8)] as CFDictionary
            ACL.run { #expect(ACL.add(service: service, ACL.access(.biometryAny)) == errSecSuccess) }
            ACL.script(outcomes: ["cancel", "match", "cancel", "match"])
            ACL.run {
                #expect(SecItemUpdate(noUI as CFDictionary, change) == errSecInteractionNotAllowed)
                #expect(SecItemUpdate(match as CFDictionary, change) == errSecUserCanceled)
                #expect(SecItemUpdate(match as CFDictionary, change) == errSecSuccess)
                #expect(SecItemDelete(noUI as CFDictionary) == errSecInteractionNotAllowed)
                #expect(SecItemDelete(match as CFDictionary) == errSecUserCanceled)
                #expect(SecItemDelete(match as CFDictionary) == errSecSuccess)
            }
            #expect(ACL.remainingOutcomes.isEmpty)
        }

        @Test func aContextWithInteractionNotAllowedNeverAsks() {
            let service = TestKeychain.uniqueService()
            ACL.run { #expect(ACL.add(service: service, ACL.access(.userPresence)) == errSecSuccess) }
            ACL.script(outcomes: ["match"])
            let (status, _) = ACL.run { () -> (OSStatus, String?) in
                let context = LAContext()
                context.interactionNotAllowed = true
                return ACL.read(service: service, [kSecUseAuthenticationContext as String: context])
            }
            #expect(status == errSecInteractionNotAllowed)
            #expect(ACL.remainingOutcomes == ["match"])
        }

        @Test func accessControlIsStoredWithTheItemAndSetsItsProtection() {
            let service = TestKeychain.uniqueService()
            ACL.script(enrolled: ["right-index"])
            ACL.run {
                let access = ACL.access(.biometryCurrentSet, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly)
                #expect(ACL.add(service: service, access) == errSecSuccess)
                let (_, result) = copyMatching([
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecReturnAttributes as String: true,
                ])
                let attributes = result as? [String: Any]
                #expect(attributes?[kSecAttrAccessible as String] as? String == "cku")
                let stored = attributes?[kSecAttrAccessControl as String] as? SecAccessControl
                #expect(stored?.policy.flags.rawValue == SecAccessControlCreateFlags.biometryCurrentSet.rawValue)
                #expect(stored?.policy.boundBiometryEnrolment == ACL.enrolmentState(["right-index"]))
            }
        }

        @Test func biometryCurrentSetWithoutEnrolmentAndDevicePasscodeWithoutPasscodeAreNotAvailable() {
            let service = TestKeychain.uniqueService()
            ACL.script(enrolled: [])
            ACL.run { #expect(ACL.add(service: service, ACL.access(.biometryCurrentSet)) == errSecNotAvailable) }
            ACL.script()
            // The shared test keychain has no passcode.
            #expect(ACL.add(service: service, ACL.access(.devicePasscode)) == errSecNotAvailable)
            #expect(ACL.add(service: service, ACL.access(.userPresence)) == errSecNotAvailable)
        }

        @Test func repeatedWrongPasscodesLockPasscodeAttemptsOut() throws {
            // Its own keychain: the lockout lasts a minute.
            let home = try makeTemporaryFolder("clavis-lockout") + "/home"
            let service = TestKeychain.uniqueService()
            try withKeychainHome(home) {
                try KeychainClient().setPasscode(
                    SecureBytes(Data(ACL.passcode.utf8)), current: nil, strength: .cheapForTesting)
                #expect(ACL.add(service: service, ACL.access(.devicePasscode)) == errSecSuccess)
                ACL.answer("0000")
                for _ in 1...5 { #expect(ACL.read(service: service).0 == errSecAuthFailed) }
                ACL.answer(ACL.passcode)
                // Locked out: the call fails without asking for a passcode that could not be checked.
                #expect(ACL.read(service: service).0 == errSecAuthFailed)
                #expect(ACL.askpassCalls.isEmpty)
                #expect(try KeychainClient().status().passcodeLockout != nil)
            }
        }
    }
}
