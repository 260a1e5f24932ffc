/// What the provider answers a request: paths, bytes, secrets, a description, signals, or a failure.
struct SecretServiceReply {
    /// The first and second lists of object paths (their meaning is the operation's: see the C header).
    var paths: [String] = []
    var secondPaths: [String] = []
    /// OpenSession's output (the server's DH public key).
    var bytes: [UInt8]?
    /// Secrets for items, sealed by the caller's session.
    var secrets: [(item: String, secret: SecretServiceRequest.TransportedSecret)] = []
    /// A described object's label, lock state, dates (seconds since 1970) and attributes.
    var description: (label: String, locked: Bool, created: UInt64, modified: UInt64)?
    var attributes: [String: String] = [:]
    /// Whether the described item's attributes and dates are sealed by the lock: reading them is `IsLocked`, but for
    /// GetAll, which answers them empty (libsecret loads an item with it); its label reads empty (secretstorage reads
    /// it to learn whether the item exists, and fails on any other error).
    var detailsAreSealed = false
    /// Whether a prompt was dismissed.
    var dismissed = false
    /// A prompt's asking, run on a thread of its own so that the bus serves other calls meanwhile: its reply (whether
    /// dismissed, the objects) completes the prompt.
    var deferredPrompt: (@Sendable () -> SecretServiceReply)?
    /// Signals to emit once the call is answered: the object emitting, the member, the object named.
    var signals: [(path: String, member: String, object: String)] = []
    /// Whether the signals go to the caller alone: it keeps its items out of the other clients' sight.
    var signalsArePrivate = false
}
