import ClavisIPC
import Synchronization

/// What the requests clavisd is receiving may hold in memory: `perUser` for one user's connections together, `total`
/// for all; a request whose body would pass either is refused (its connection closed), not buffered. With the
/// connections' own buffers (16 KiB read-ahead and a 64 KiB receive each, at most 64 connections a user) this bounds
/// what clients can make the daemon hold.
final class RequestBudget: Sendable {
    /// The most one user's requests may hold at once: one of the largest frames while smaller ones arrive beside it
    /// (a body's storage counts twice while it grows).
    static let perUser = 128 * 1024 * 1024
    /// The most every user's requests together may hold at once.
    static let total = 512 * 1024 * 1024

    private let held = Mutex<(total: Int, byUser: [UInt32: Int])>((0, [:]))

    /// The budget of the connections of user `uid`.
    func forUser(_ uid: UInt32) -> any FrameBudget {
        UserShare(uid: uid, budget: self)
    }

    fileprivate func reserve(_ bytes: Int, for uid: UInt32) -> Bool {
        held.withLock { held in
            let user = held.byUser[uid, default: 0]
            guard user + bytes <= Self.perUser, held.total + bytes <= Self.total else { return false }
            held.byUser[uid] = user + bytes
            held.total += bytes
            return true
        }
    }

    fileprivate func release(_ bytes: Int, for uid: UInt32) {
        guard bytes > 0 else { return }
        held.withLock { held in
            let user = max(held.byUser[uid, default: 0] - bytes, 0)
            held.byUser[uid] = user == 0 ? nil : user
            held.total = max(held.total - bytes, 0)
        }
    }

    /// One user's share, given to each of their connections.
    private final class UserShare: FrameBudget {
        let uid: UInt32
        let budget: RequestBudget

        init(uid: UInt32, budget: RequestBudget) {
            self.uid = uid
            self.budget = budget
        }

        func reserve(_ bytes: Int) -> Bool { budget.reserve(bytes, for: uid) }
        func release(_ bytes: Int) { budget.release(bytes, for: uid) }
    }
}
