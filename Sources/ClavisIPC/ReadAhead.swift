#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connection's receive buffer: bytes that arrived ahead of where the reader is, zeroed as they are taken.
struct ReadAhead: ~Copyable {
    /// How many bytes one receive asks for: a request or an answer with a small secret fits whole.
    static let capacity = 16 * 1024

    private let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
    private var start = 0
    private var end = 0

    init() {}

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    /// How many bytes wait to be read.
    var count: Int { end - start }
    var isEmpty: Bool { start == end }

    /// Receives once with `receive` (a pointer and the room there) after the waiting bytes; what it returned.
    mutating func fill(_ receive: (UnsafeMutableRawPointer, Int) -> Int) -> Int {
        if start > 0 {
            // Move the waiting bytes to the front, and zero what they leave behind.
            storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: count)
            explicit_bzero(storage.baseAddress! + count, start)
            (start, end) = (0, count)
        }
        let received = receive(storage.baseAddress! + end, storage.count - end)
        if received > 0 { end += received }
        return received
    }

    /// Calls `body` with the waiting bytes, left in place; the view must not escape.
    func withWaitingBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(rebasing: storage[start..<end]))
    }

    /// Takes the first `length` waiting bytes (there must be as many).
    mutating func take(_ length: Int) -> [UInt8] {
        precondition(length <= count)
        var taken: [UInt8] = []
        move(upTo: length, to: &taken)
        return taken
    }

    /// Moves up to `length` waiting bytes onto the end of `destination`, zeroing them here.
    mutating func move(upTo length: Int, to destination: inout [UInt8]) {
        let moved = min(length, count)
        let source = UnsafeRawBufferPointer(rebasing: storage[start..<(start + moved)])
        destination.append(contentsOf: source)
        explicit_bzero(storage.baseAddress! + start, moved)
        start += moved
        if start == end { (start, end) = (0, 0) }
    }
}
