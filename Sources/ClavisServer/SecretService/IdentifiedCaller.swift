import ClavisEmbedded
import Synchronization

/// Who a Secret Service client is, worked out at its first call and kept for its later ones, as a socket connection
/// keeps its peer: its process, and the keychain service built for it from the app registry. Identifying opens the
/// process's executable and `/proc` folder; checking that it still runs that program costs one system call.
final class IdentifiedCaller: Sendable {
    /// The client's process and its keychain service.
    struct Identity: Sendable {
        var peer: PeerProcess
        var service: EmbeddedKeychainService
    }

    private let identity = Mutex<Identity?>(nil)

    /// The identity kept, while the client's process still runs the program it was identified by (one that exec'd
    /// another program is identified anew).
    func current() -> Identity? {
        identity.withLock { kept in
            guard let kept, kept.peer.stillRunsTheIdentifiedProgram() else { return nil }
            return kept
        }
    }

    /// Keeps `identified` for the client's next calls.
    func keep(_ identified: Identity) {
        identity.withLock { $0 = identified }
    }
}
