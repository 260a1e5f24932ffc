import Synchronization

/// The process a Secret Service client was identified as, kept for the client's later calls: identifying opens its
/// executable and its `/proc` folder, while checking that it still runs that program costs one system call.
final class IdentifiedPeer: Sendable {
    private let peer = Mutex<PeerProcess?>(nil)

    /// The peer kept for process `pid`, while that process still runs the program it was identified by.
    func current(pid: Int32) -> PeerProcess? {
        peer.withLock { kept in
            guard let kept, kept.pid == pid, kept.stillRunsTheIdentifiedProgram() else { return nil }
            return kept
        }
    }

    /// Keeps `identified` for the client's next calls.
    func keep(_ identified: PeerProcess) {
        peer.withLock { $0 = identified }
    }
}
