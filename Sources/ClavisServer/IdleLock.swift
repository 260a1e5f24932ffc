import ClavisCore
import Synchronization

/// When to lock a keychain nobody used for a while (`clavisd --auto-lock MINUTES`), as a phone locks when left
/// alone: the keychain of each user is locked once no request reached it for the idle period, and not again until
/// a request comes. Time is passed in, so the rule is tested without waiting.
final class IdleLock: Sendable {
    /// How long a keychain may sit unused before it is locked.
    let period: Duration
    private let lastActivity = Mutex<[KeychainHome: ContinuousClock.Instant]>([:])

    init(period: Duration) {
        self.period = period
    }

    /// Notes a request on the keychain in `home` at `now`.
    func noteActivity(on home: KeychainHome, at now: ContinuousClock.Instant) {
        lastActivity.withLock { $0[home] = now }
    }

    /// The keychains idle for the whole period at `now`; each is named once per idle spell.
    func keychainsToLock(at now: ContinuousClock.Instant) -> [KeychainHome] {
        lastActivity.withLock { activity in
            let idle = activity.filter { now - $0.value >= period }.map(\.key)
            for home in idle { activity[home] = nil }
            return idle.sorted { $0.path < $1.path }
        }
    }
}
