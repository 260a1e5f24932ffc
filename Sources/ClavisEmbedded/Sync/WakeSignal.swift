#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A descriptor other threads make readable to wake one that waits on it (`poll`): a non-blocking pipe, whose
/// bytes fold every signal given before the waiter drains them into one wake.
final class WakeSignal: Sendable {
    /// The end to wait on; -1 when the system gave no pipe (waiters then wake on their timeouts only).
    let descriptor: Int32
    private let writing: Int32

    /// A signal nobody has given yet.
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        descriptor = ends[0]
        writing = ends[1]
    }

    deinit {
        for end in [descriptor, writing] where end >= 0 { close(end) }
    }

    /// Wakes the waiter (at once if it waits, else at its next wait). A full pipe wakes it already.
    func signal() {
        var one: UInt8 = 1
        _ = write(writing, &one, 1)
    }

    /// Takes the signals given so far: the next wait waits again.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &bytes, bytes.count) > 0 {}
    }

    /// Waits until the signal is given or `milliseconds` pass (-1: without limit).
    func wait(milliseconds: Int32) {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&waiting, 1, milliseconds)
    }
}
