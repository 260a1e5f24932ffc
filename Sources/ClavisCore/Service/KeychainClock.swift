public import FoundationEssentials
import Synchronization

/// Where the keychain reads the time: the reuse windows of authentications (in the client and in the service) and
/// the passcode lockout. The system's clock by default; a test moves an adjustable one forward (`advance(by:)`)
/// rather than sleeping through a window or a lockout.
///
/// An adjustable clock runs with the system's, ahead by the sum of its advances; copies share the advances. Two
/// clocks are equal when they are the same clock.
public struct KeychainClock: Sendable, Hashable {
    /// How far an adjustable clock is ahead; shared by its copies.
    private final class Lead: Sendable {
        let duration = Mutex<Duration>(.zero)
    }

    private let lead: Lead?

    /// The system's clock.
    public static let system = KeychainClock(lead: nil)

    /// A new clock that runs with the system's until `advance(by:)` moves it ahead.
    public static func adjustable() -> KeychainClock { KeychainClock(lead: Lead()) }

    private init(lead: Lead?) { self.lead = lead }

    /// How far this clock is ahead of the system's.
    public var offset: Duration { lead?.duration.withLock { $0 } ?? .zero }

    /// The monotonic time now, for reuse windows.
    public var now: ContinuousClock.Instant { .now + offset }

    /// The calendar time now, for lockouts stored in the keychain.
    public var date: Date {
        let (seconds, attoseconds) = offset.components
        return Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Moves an adjustable clock ahead by `duration` (not negative): what would have happened meanwhile happens.
    public func advance(by duration: Duration) {
        guard let lead else {
            preconditionFailure("the system clock cannot be advanced; use KeychainClock.adjustable()")
        }
        precondition(duration >= .zero, "a keychain clock only moves forward")
        lead.duration.withLock { $0 += duration }
    }

    /// True for the same clock.
    public static func == (left: KeychainClock, right: KeychainClock) -> Bool {
        left.lead.map(ObjectIdentifier.init) == right.lead.map(ObjectIdentifier.init)
    }

    /// Hashes the clock's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(lead.map(ObjectIdentifier.init))
    }
}
