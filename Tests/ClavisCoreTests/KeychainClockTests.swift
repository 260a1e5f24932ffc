import ClavisCore
import FoundationEssentials
import Testing

/// `KeychainClock`: an adjustable clock runs ahead by what it was advanced, in both its readings, and its copies
/// share the advances; the system clock is nobody's but the system's.
@Suite struct KeychainClockTests {
    @Test func anAdjustableClockRunsAheadByItsAdvancesAndItsCopiesFollow() {
        let clock = KeychainClock.adjustable()
        let copy = clock
        let before = (instant: ContinuousClock.now, date: Date())
        clock.advance(by: .seconds(90))
        #expect(copy.offset == .seconds(90))
        #expect(copy.now - before.instant >= .seconds(90))
        #expect(copy.date.timeIntervalSince(before.date) >= 90)
        #expect(copy.date.timeIntervalSince(before.date) < 90 + 60, "ahead by the advance, not more")
    }

    @Test func clocksAreEqualOnlyToThemselves() {
        let clock = KeychainClock.adjustable()
        #expect(clock == clock)
        #expect(clock != KeychainClock.adjustable())
        #expect(KeychainClock.system == KeychainClock.system)
        #expect(KeychainClock.system.offset == .zero)
        #expect(Set([clock, clock, .system]).count == 2)
    }
}
