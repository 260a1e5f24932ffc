import ClavisCore
import ClavisCrypto
import ClavisStore
import FoundationEssentials
import Testing

@Suite struct PasscodeLockoutTests {
    let temporary = TemporaryHome()

    /// A missing or empty passcode was never typed: it is refused the same way everywhere and never counted.
    @Test func anEmptyOrMissingPasscodeIsRefusedWithoutCountingAnAttempt() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("right".secret, current: nil, kdf: .cheapForTesting())
        keychain.lock()
        for _ in 0..<3 {
            #expect(status { try keychain.unlock(passcode: nil) } == .authFailed)
            #expect(status { try keychain.unlock(passcode: "".secret) } == .authFailed)
            #expect(status { try keychain.verifyPasscode("".secret) } == .authFailed)
            #expect(status { try keychain.setPasscode("new".secret, current: nil) } == .authFailed)
            #expect(status { try keychain.setPasscode("new".secret, current: "".secret) } == .authFailed)
        }
        #expect(try keychain.passcodeLockout == nil, "fifteen empty answers count for nothing")
        let inspector = try StoreInspector(temporary.home)
        #expect(
            try inspector.connection.scalar("SELECT count(*) FROM settings WHERE name = 'passcode_failures'")?.integer
                == 0)
        try keychain.unlock(passcode: "right".secret)
        #expect(keychain.lockState == .unlocked)
    }

    @Test func fiveWrongPasscodesLockOutEvenTheRightOneUntilTheBackoffPasses() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("right".secret, current: nil, kdf: .cheapForTesting())
        try keychain.verifyPasscode("right".secret)
        for _ in 0..<4 {
            #expect(status { try keychain.verifyPasscode("wrong".secret) } == .authFailed)
        }
        #expect(try keychain.passcodeLockout == nil, "four failures do not lock out")
        #expect(status { try keychain.verifyPasscode("wrong".secret) } == .authFailed)
        let until = try #require(try keychain.passcodeLockout)
        #expect(until.timeIntervalSinceNow > 50 && until.timeIntervalSinceNow <= 60)
        #expect(status { try keychain.verifyPasscode("right".secret) } == .authFailed)
        let other = try temporary.open()
        #expect(
            status { try other.unlock(passcode: "right".secret) } == .authFailed, "the count is shared by processes")

        let inspector = try StoreInspector(temporary.home)
        try inspector.connection.execute(
            "UPDATE settings SET value = ? WHERE name = 'passcode_locked_until'", [.blob(Array("1".utf8))])
        #expect(try keychain.passcodeLockout == nil)
        #expect(status { try keychain.verifyPasscode("wrong".secret) } == .authFailed)
        let longer = try #require(try keychain.passcodeLockout)
        #expect(longer.timeIntervalSinceNow > 250, "the sixth failure waits five minutes")
        try inspector.connection.execute(
            "UPDATE settings SET value = ? WHERE name = 'passcode_locked_until'", [.blob(Array("1".utf8))])
        try keychain.verifyPasscode("right".secret)
        #expect(try keychain.passcodeLockout == nil)
        #expect(status { try keychain.verifyPasscode("wrong".secret) } == .authFailed)
        #expect(try keychain.passcodeLockout == nil, "a right passcode resets the count")
    }

    @Test func verifyingWithoutAPasscodeIsNotAvailable() throws {
        let keychain = try temporary.open()
        #expect(status { try keychain.verifyPasscode("x".secret) } == .notAvailable)
    }

    @Test func wrongCurrentPasscodeOnChangeCountsTowardTheLockout() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("right".secret, current: nil, kdf: .cheapForTesting())
        for _ in 0..<5 {
            #expect(status { try keychain.setPasscode("new".secret, current: "wrong".secret) } == .authFailed)
        }
        #expect(try keychain.passcodeLockout != nil)
        #expect(status { try keychain.setPasscode("new".secret, current: "right".secret) } == .authFailed)
    }
}
