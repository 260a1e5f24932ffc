public import ClavisCore
public import FoundationEssentials
import Synchronization

/// What each authentication session proved to this service: the passcodes the service verified and the matches its
/// own sensor made, session by session. A client's proof counts only as far as this record confirms it, so no client
/// can vouch for itself (forged bytes in a proof open nothing).
///
/// One ledger serves one caller: a connection in the daemon, the process when embedded. A record lasts the longest
/// reuse window (Apple's 300 s); a client keeps its context's shorter window by not claiming what it finds stale.
public final class AuthenticationLedger: Sendable {
    /// The longest a verified passcode or a biometric match counts (Apple's maximum reuse duration).
    public static let reuseWindow: Duration = .seconds(300)
    /// The most sessions one caller keeps on record; the least recently used is forgotten first.
    public static let maximumSessions = 64

    private struct Record {
        var passcodeAt: ContinuousClock.Instant?
        var biometryAt: ContinuousClock.Instant?
        var biometryEnrolment: Data?
        var touchedAt: ContinuousClock.Instant
    }

    private let records = Mutex<[AuthenticationSessionID: Record]>([:])
    /// Where the ledger reads the time when a call gives none.
    public let clock: KeychainClock

    /// An empty ledger timing its records by `clock`.
    public init(clock: KeychainClock = .system) {
        self.clock = clock
    }

    /// Records that the service verified the passcode for `session` (at `now`, by default the clock's time).
    public func notePasscode(for session: AuthenticationSessionID, at now: ContinuousClock.Instant? = nil) {
        let now = now ?? clock.now
        update(session, at: now) { $0.passcodeAt = now }
    }

    /// Records that the service's sensor matched under `enrolment` for `session`.
    public func noteBiometricMatch(
        _ enrolment: Data, for session: AuthenticationSessionID, at now: ContinuousClock.Instant? = nil
    ) {
        let now = now ?? clock.now
        update(session, at: now) { record in
            record.biometryAt = now
            record.biometryEnrolment = enrolment
        }
    }

    /// Forgets `session`.
    public func end(_ session: AuthenticationSessionID) {
        _ = records.withLock { $0.removeValue(forKey: session) }
    }

    /// `proof` as far as the record confirms it: its passcode part only when the passcode was verified here for its
    /// session within the window (bound to `keychainIdentity`), its biometric part only for a match this service's
    /// sensor made for that session within the window (with the enrolment recorded then, whatever the proof says).
    /// The application password passes as given: the item it opens checks it.
    public func vetted(
        _ proof: AuthenticationProof?, keychainIdentity: Data, at now: ContinuousClock.Instant? = nil
    ) -> AuthenticationProof? {
        guard let proof else { return nil }
        let now = now ?? clock.now
        var vetted = AuthenticationProof(applicationPassword: proof.applicationPassword, session: proof.session)
        guard let session = proof.session, let record = records.withLock({ $0[session] }) else { return vetted }
        func fresh(_ instant: ContinuousClock.Instant?) -> Bool {
            instant.map { now - $0 <= Self.reuseWindow && $0 <= now } ?? false
        }
        if proof.passcode && fresh(record.passcodeAt) {
            vetted.passcode = true
            vetted.passcodeKeychain = keychainIdentity
        }
        if proof.biometryEnrolment != nil && fresh(record.biometryAt) {
            vetted.biometryEnrolment = record.biometryEnrolment
        }
        return vetted
    }

    private func update(
        _ session: AuthenticationSessionID, at now: ContinuousClock.Instant, _ change: (inout Record) -> Void
    ) {
        records.withLock { records in
            var record = records[session] ?? Record(touchedAt: now)
            record.touchedAt = now
            change(&record)
            records[session] = record
            if records.count > Self.maximumSessions,
                let oldest = records.min(by: { $0.value.touchedAt < $1.value.touchedAt })?.key
            {
                records.removeValue(forKey: oldest)
            }
        }
    }
}
