import ClavisCore
import ClavisCrypto
import ClavisStore
import FoundationEssentials
import Testing

@Suite struct AccessControlTests {
    let temporary = TemporaryHome()
    let enrolment = Data("enrolled: left-thumb".utf8)

    private func keychainWithPasscode() throws -> Keychain {
        let keychain = try temporary.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        return keychain
    }

    private func protected(
        _ account: String, _ flags: AccessControl.Flags, protection: ProtectionClass = .whenUnlockedThisDeviceOnly
    ) -> NewItem {
        let policy = AccessControl(
            protection: protection, flags: flags,
            boundBiometryEnrolment: flags.contains(.biometryCurrentSet) ? enrolment : nil)
        return password(
            account: account, secret: "secret-\(account)",
            [.accessible: .string(protection.rawValue), .accessControl: .data(policy.encoded)])
    }

    private func read(_ keychain: Keychain, _ account: String, proof: AuthenticationProof?) throws -> String? {
        var lookup = query(account: account)
        lookup.authentication = proof
        return try keychain.find(lookup).resultOrThrow().first?.secret?.string
    }

    @Test func secretNeedsAProofButAttributesDoNot() throws {
        let keychain = try keychainWithPasscode()
        _ = try keychain.add(protected("a", .userPresence)).resultOrThrow()
        do {
            _ = try read(keychain, "a", proof: nil)
            Issue.record("read without authentication")
        } catch let error as KeychainError {
            #expect(error.code == .interactionNotAllowed)
            #expect(error.pendingAccessControl?.flags == .userPresence)
        }
        let attributesOnly = try keychain.find(query(account: "a", returnsSecret: false)).resultOrThrow()
        #expect(attributesOnly.count == 1)
        #expect(try read(keychain, "a", proof: AuthenticationProof(passcode: true)) == "secret-a")
    }

    @Test func eachFlagIsMetByItsOwnProof() throws {
        let keychain = try keychainWithPasscode()
        let passcode = AuthenticationProof(passcode: true)
        let biometry = AuthenticationProof(biometryEnrolment: enrolment)
        let otherBiometry = AuthenticationProof(biometryEnrolment: Data("enrolled: right-thumb".utf8))
        let cases: [(AccessControl.Flags, [AuthenticationProof: Bool])] = [
            (.userPresence, [passcode: true, biometry: true, otherBiometry: true]),
            (.biometryAny, [passcode: false, biometry: true, otherBiometry: true]),
            (.biometryCurrentSet, [passcode: false, biometry: true]),
            (.devicePasscode, [passcode: true, biometry: false]),
            (.watch, [passcode: false, biometry: false]),
            ([.biometryAny, .or, .devicePasscode], [passcode: true, biometry: true]),
            (
                [.biometryAny, .and, .devicePasscode],
                [
                    passcode: false, biometry: false,
                    AuthenticationProof(passcode: true, biometryEnrolment: enrolment): true,
                ]
            ),
        ]
        for (index, (flags, expectations)) in cases.enumerated() {
            let account = "item-\(index)"
            _ = try keychain.add(protected(account, flags)).resultOrThrow()
            for (proof, opens) in expectations {
                let outcome = status { try read(keychain, account, proof: proof) }
                #expect(
                    (outcome == nil) == opens, "flags \(flags.rawValue) with \(proof): \(String(describing: outcome))")
            }
        }
    }

    @Test func aPasscodeProofOpensOnlyTheKeychainThatVerifiedIt() throws {
        let keychain = try keychainWithPasscode()
        _ = try keychain.add(protected("a", .devicePasscode)).resultOrThrow()
        let other = TemporaryHome()
        let otherKeychain = try other.open()
        #expect(otherKeychain.identity != keychain.identity)
        let fromOther = AuthenticationProof(passcode: true, passcodeKeychain: otherKeychain.identity)
        #expect(status { try read(keychain, "a", proof: fromOther) } == .interactionNotAllowed)
        let fromThis = AuthenticationProof(passcode: true, passcodeKeychain: keychain.identity)
        #expect(try read(keychain, "a", proof: fromThis) == "secret-a")
        #expect(try temporary.open().identity == keychain.identity, "the identity is stable across opens")
    }

    @Test func changedEnrolmentMakesACurrentSetItemPermanentlyUnreadable() throws {
        let keychain = try keychainWithPasscode()
        _ = try keychain.add(protected("bound", .biometryCurrentSet)).resultOrThrow()
        _ = try keychain.add(protected("any", .biometryAny)).resultOrThrow()
        let changed = AuthenticationProof(biometryEnrolment: Data("enrolled: left-thumb, new-finger".utf8))
        #expect(status { try read(keychain, "bound", proof: changed) } == .authFailed)
        #expect(try read(keychain, "any", proof: changed) == "secret-any")
        #expect(
            status { try read(keychain, "bound", proof: AuthenticationProof(passcode: true)) } == .interactionNotAllowed
        )
    }

    @Test func anInvalidatedItemCanBeDeletedAfterAuthenticatingButNotUpdated() throws {
        let keychain = try keychainWithPasscode()
        _ = try keychain.add(protected("bound", .biometryCurrentSet)).resultOrThrow()
        var lookup = query(account: "bound", returnsSecret: false)
        #expect(status { try keychain.delete(lookup).resultOrThrow() } == .interactionNotAllowed)
        lookup.authentication = AuthenticationProof(biometryEnrolment: Data("enrolled: someone else".utf8))
        #expect(
            status { try keychain.update(lookup, with: ItemChanges(secret: "x".secret)).resultOrThrow() } == .authFailed
        )
        #expect(try keychain.delete(lookup).resultOrThrow() == 1)
        _ = try keychain.add(protected("bound", .biometryCurrentSet)).resultOrThrow()
    }

    @Test func updateAndDeleteAreGuardedLikeRead() throws {
        let keychain = try keychainWithPasscode()
        _ = try keychain.add(protected("a", .devicePasscode)).resultOrThrow()
        var lookup = query(account: "a", returnsSecret: false)
        #expect(
            status { try keychain.update(lookup, with: ItemChanges(secret: "new".secret)).resultOrThrow() }
                == .interactionNotAllowed)
        #expect(status { try keychain.delete(lookup).resultOrThrow() } == .interactionNotAllowed)
        lookup.authentication = AuthenticationProof(passcode: true)
        #expect(try keychain.update(lookup, with: ItemChanges(secret: "new".secret)).resultOrThrow() == 1)
        #expect(try read(keychain, "a", proof: AuthenticationProof(passcode: true)) == "new")
        #expect(try keychain.delete(lookup).resultOrThrow() == 1)
    }

    @Test func skipLeavesOutItemsNeedingAuthentication() throws {
        let keychain = try keychainWithPasscode()
        _ = try keychain.add(password(account: "open", service: "s")).resultOrThrow()
        _ = try keychain.add(protected("guarded", .userPresence)).resultOrThrow()
        let all = ItemQuery(itemClass: .genericPassword, returnsSecret: true, unauthenticatedItems: .skip)
        #expect(try keychain.find(all).resultOrThrow().compactMap { $0.attributes[.account]?.stringValue } == ["open"])
    }

    @Test func invalidCombinationsAreParamErrors() throws {
        let keychain = try keychainWithPasscode()
        #expect(status { try keychain.add(protected("a", [.biometryAny, .devicePasscode])).resultOrThrow() } == .param)
        #expect(
            status { try keychain.add(protected("b", [.biometryAny, .or, .and, .devicePasscode])).resultOrThrow() }
                == .param)
        #expect(status { try keychain.add(protected("c", [.privateKeyUsage])).resultOrThrow() } == .param)
        #expect(
            status { try keychain.add(protected("d", AccessControl.Flags(rawValue: 1 << 9))).resultOrThrow() } == .param
        )
        let mismatched = password(
            account: "e",
            [
                .accessible: .string("ak"),
                .accessControl: .data(AccessControl(protection: .always, flags: .userPresence).encoded),
            ])
        #expect(status { try keychain.add(mismatched).resultOrThrow() } == .param)
        let garbage = password(account: "f", [.accessControl: .data(Data([1, 2, 3]))])
        #expect(status { try keychain.add(garbage).resultOrThrow() } == .param)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().isEmpty)
    }

    @Test func passcodeConditionsNeedAKeychainPasscode() throws {
        let keychain = try temporary.open()
        #expect(status { try keychain.add(protected("a", .devicePasscode)).resultOrThrow() } == .notAvailable)
        #expect(status { try keychain.add(protected("b", .userPresence)).resultOrThrow() } == .notAvailable)
        let unbound = password(
            account: "c",
            [
                .accessible: .string("aku"),
                .accessControl: .data(
                    AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .biometryCurrentSet).encoded),
            ])
        try keychain.setPasscode("1".secret, current: nil, kdf: .cheapForTesting())
        #expect(status { try keychain.add(unbound).resultOrThrow() } == .notAvailable)
    }

    @Test func policyRoundTripsThroughItsEncoding() throws {
        let policy = AccessControl(
            protection: .whenPasscodeSetThisDeviceOnly, flags: [.biometryCurrentSet, .or, .devicePasscode],
            boundBiometryEnrolment: enrolment)
        #expect(try AccessControl(encoded: policy.encoded) == policy)
        let plain = AccessControl(protection: .always, flags: .userPresence)
        #expect(try AccessControl(encoded: plain.encoded) == plain)
    }
}
