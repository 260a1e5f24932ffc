/// What `KeychainService.sync` is asked to do with this device's sync: every change of the circle of a user's
/// devices, and the rounds that carry items between them (see the README's "Sync between your machines").
public enum SyncCommand: Sendable, Hashable {
    /// Reports how sync stands, changing nothing.
    case status
    /// Makes the account's circle with this device alone and starts syncing through `server` (a libpq connection
    /// string without a password); the answer carries the recovery key, which nothing shows again. A paused device
    /// (`disable(forget: false)`) resumes instead, and `server` may be empty then.
    case enable(server: String, deviceName: String)
    /// Asks to join the account's circle on `server`: the answer carries the code a member's user compares before
    /// approving; this device syncs once a member approves it.
    case join(server: String, deviceName: String)
    /// Approves the device waiting to join whose code is `code`.
    case approve(code: String)
    /// Removes the device named `device` (its name, or the start of its identifier in hex) from the circle and
    /// rotates the sync keys: it reads nothing written after.
    case remove(device: String)
    /// Joins the account's circle on `server` with its recovery key alone, when no member is left to approve.
    case recover(server: String, deviceName: String, recoveryKey: SecureBytes)
    /// Stops syncing here; with `forget`, also forgets this device's keys and circle (joining again needs an
    /// approval). Items stay in the keychain either way.
    case disable(forget: Bool)
    /// Runs a round now and answers once it ended.
    case now
}
