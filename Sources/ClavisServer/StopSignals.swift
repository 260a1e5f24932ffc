import ClavisCore
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How clavisd stops on SIGTERM (systemd's stop) or SIGINT (an operator's Ctrl-C): the signals are blocked in every
/// thread and taken by one thread of their own (`sigwait`), which finishes what must outlive the daemon (its access
/// log) before the process exits. With their default action, the process ended at once: journal copies waiting for
/// their batch (up to 100 ms of requests) and entries whose answers had gone out were lost on every stop.
public enum StopSignals {
    /// The signals that stop the daemon.
    private static var stopping: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        return signals
    }

    /// Blocks SIGTERM and SIGINT in this thread and in every thread it starts from now on, and unblocks every other
    /// signal (a parent may have started the daemon with signals blocked: a thread pool's mask is inherited). Call
    /// before any thread starts. A child starts with them unblocked: `clavis_spawn` gives its children an empty mask,
    /// and the child of a `fork` inside a library unblocks them at once (a library that stops its program with
    /// SIGTERM and waits for it would otherwise wait forever).
    public static func block() {
        var signals = stopping
        sigprocmask(SIG_SETMASK, &signals, nil)
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        pthread_atfork(nil, nil) {
            var signals = StopSignals.stopping
            sigprocmask(SIG_UNBLOCK, &signals, nil)
        }
    }

    /// Starts the thread that waits for SIGTERM or SIGINT and then runs `stop` with the signal's number; one that
    /// arrived before is taken at once. Once one is taken, that thread unblocks both: a second one (a stop that
    /// hangs, a second Ctrl-C) ends the daemon at once, as their default action does. When the system refuses the
    /// thread, they are unblocked in this thread (and the threads it starts) for the same reason.
    public static func whenReceived(_ stop: @escaping @Sendable (Int32) -> Never) {
        let started = DetachedThread.start {
            var signals = stopping
            var received: Int32 = 0
            while sigwait(&signals, &received) != 0 {}
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            stop(received)
        }
        if !started {
            var signals = stopping
            sigprocmask(SIG_UNBLOCK, &signals, nil)
        }
    }
}
