import ClavisCore

/// What the bodies of frames being received may hold in memory, shared by the connections it is given to.
public protocol FrameBudget: AnyObject, Sendable {
    /// Takes `bytes` from the budget; false (taking nothing) when that would pass its limit.
    func reserve(_ bytes: Int) -> Bool
    /// Gives back `bytes` reserved earlier.
    func release(_ bytes: Int)
}

/// A frame's body as its bytes arrive: its storage grows (doubling, up to the frame's length) only as bytes come,
/// each growth reserved from the budget before it is made; zeroed and given back by `abandon()` when the frame is not
/// received whole.
struct ArrivingBody: ~Copyable {
    /// The bytes so far.
    private(set) var bytes: [UInt8] = []
    /// The body's length, as its header says.
    let length: Int
    /// What the storage has taken from the budget.
    private(set) var reserved = 0
    private let budget: (any FrameBudget)?

    /// The smallest storage a body gets.
    static let initialCapacity = 16 * 1024

    init(length: Int, budget: (any FrameBudget)?) {
        self.length = length
        self.budget = budget
    }

    var count: Int { bytes.count }

    /// Appends `chunk`, growing the storage first.
    mutating func append(_ chunk: [UInt8]) throws(KeychainError) {
        try makeRoom(for: chunk.count)
        bytes += chunk
    }

    /// Moves up to `count` bytes from `readAhead`, growing the storage first.
    mutating func append(upTo count: Int, from readAhead: inout ReadAhead) throws(KeychainError) {
        try makeRoom(for: min(count, readAhead.count))
        readAhead.move(upTo: count, to: &bytes)
    }

    /// Zeroes the bytes so far and gives their reservation back.
    mutating func abandon() {
        Frame.wipe(&bytes)
        budget?.release(reserved)
        reserved = 0
    }

    /// Grows the storage so that `count` more bytes fit: to twice its size (at least `initialCapacity`, at most the
    /// body's length). The new storage is reserved from the budget before it is made, while the old one still counts
    /// (both are held while the bytes move); the old one is zeroed, freed and given back after.
    private mutating func makeRoom(for count: Int) throws(KeychainError) {
        guard bytes.count + count > bytes.capacity else { return }
        let capacity = min(length, max(bytes.count + count, bytes.capacity * 2, Self.initialCapacity))
        guard budget?.reserve(capacity) ?? true else {
            throw KeychainError(.allocate, "the keychain daemon holds as many request bytes as it may: try again later")
        }
        var grown: [UInt8] = []
        grown.reserveCapacity(capacity)
        grown += bytes
        Frame.wipe(&bytes)
        bytes = grown
        budget?.release(reserved)
        reserved = capacity
    }
}
