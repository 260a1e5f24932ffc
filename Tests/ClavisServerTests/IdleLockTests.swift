import ClavisCore
import Testing

@testable import ClavisServer

/// `clavisd --auto-lock`: a keychain is locked once nobody used it for the whole period, once per idle spell. Time is
/// given, not waited for.
@Suite struct IdleLockTests {
    private let alice = KeychainHome(path: "/var/lib/clavis/1000")
    private let bob = KeychainHome(path: "/var/lib/clavis/1001")

    @Test func aKeychainIsLockedOnlyOnceTheWholePeriodPassedWithoutARequest() {
        let idle = IdleLock(period: .seconds(300))
        let start = ContinuousClock.now
        idle.noteActivity(on: alice, at: start)
        idle.noteActivity(on: bob, at: start + .seconds(200))
        #expect(idle.keychainsToLock(at: start + .seconds(299)).isEmpty)
        #expect(idle.keychainsToLock(at: start + .seconds(300)) == [alice])
        #expect(idle.keychainsToLock(at: start + .seconds(400)).isEmpty, "alice once; bob's period is not over")
        #expect(idle.keychainsToLock(at: start + .seconds(500)) == [bob])
    }

    @Test func aRequestStartsTheIdlePeriodAgain() {
        let idle = IdleLock(period: .seconds(60))
        let start = ContinuousClock.now
        idle.noteActivity(on: alice, at: start)
        idle.noteActivity(on: alice, at: start + .seconds(50))
        #expect(idle.keychainsToLock(at: start + .seconds(100)).isEmpty)
        #expect(idle.keychainsToLock(at: start + .seconds(110)) == [alice])
        // Used again after the lock: locked again after another idle period, not before.
        idle.noteActivity(on: alice, at: start + .seconds(120))
        #expect(idle.keychainsToLock(at: start + .seconds(179)).isEmpty)
        #expect(idle.keychainsToLock(at: start + .seconds(180)) == [alice])
    }
}
