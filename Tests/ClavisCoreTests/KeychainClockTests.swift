import ClavisCore
import FoundationEssentials
import Testing

/// `KeychainClock`: an adjustable clock stands still but for what it was advanced, in both its readings, and its
/// copies share the advances; the system clock is nobody's but the system's.
@Suite struct KeychainClockTests {
    @Test func anAdjustableClockMovesOnlyByItsAdvancesAndItsCopiesFollow() {
        let before = (instant: ContinuousClock.now, date: Date())
        let clock = KeychainClock.adjustable()
        let start = (instant: clock.now, date: clock.date)
        #expect(start.instant >= before.instant && start.date >= before.date, "it starts at the present moment")
        let copy = clock
        clock.advance(by: .seconds(90))
        #expect(copy.offset == .seconds(90))
        #expect(copy.now - start.instant == .seconds(90), "exactly the advance, however long the test took")
        #expect(copy.date.timeIntervalSince(start.date) == 90)
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
