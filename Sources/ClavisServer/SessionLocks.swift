import CLogind
import ClavisCore
import ClavisSystem

/// logind's session events, followed on the system bus: a session's screen lock locks its user's keychain, and the
/// machine going to sleep locks every keychain, as an iPhone's keychain locks with its screen (`WhenUnlocked`
/// classes close; `AfterFirstUnlock` ones stay open). logind's `Unlock` opens nothing: unlocking takes the passcode.
enum SessionLocks {
    /// What a lock applies to: one user's keychain, or every keychain (before sleep).
    enum Scope: Sendable, Equatable {
        case user(UInt32)
        case everyUser
    }

    /// What logind said.
    enum Event: Sendable, Equatable {
        /// A session locked (`Lock`), or the machine is going to sleep (`everyUser`).
        case lock(Scope)
        /// A user's session unlocked: the keychain stays as it is.
        case unlock(UInt32)
    }

    /// Subscribes to logind and follows it on a thread of its own, calling `handle` for each event; the reason when
    /// logind cannot be followed (no system bus, as in a container), so that the daemon can say so and go on.
    static func follow(_ handle: @escaping @Sendable (Event) -> Void) -> String? {
        var error: Int32 = 0
        guard let opened = clavis_logind_open(&error) else { return SystemError(-error).description }
        let watch = Watch(pointer: opened, handle: handle)
        let started = DetachedThread.start {
            let context = Unmanaged.passRetained(watch).toOpaque()
            let result = clavis_logind_run(
                watch.pointer,
                { context, uid, locked in
                    let watch = Unmanaged<Watch>.fromOpaque(context!).takeUnretainedValue()
                    if locked == 0 {
                        watch.handle(.unlock(uid))
                    } else {
                        watch.handle(.lock(uid == CLAVIS_LOGIND_EVERY_USER ? .everyUser : .user(uid)))
                    }
                }, context)
            DaemonLog.report("stopped following logind's session locks: \(SystemError(-result))")
            clavis_logind_close(watch.pointer)
            Unmanaged<Watch>.fromOpaque(context).release()
        }
        if !started {
            clavis_logind_close(opened)
            return "no thread to follow it on"
        }
        return nil
    }

    /// The subscription and what to do on an event, handed to the watching thread (which alone uses the pointer).
    private final class Watch: @unchecked Sendable {
        let pointer: OpaquePointer
        let handle: @Sendable (Event) -> Void

        init(pointer: OpaquePointer, handle: @escaping @Sendable (Event) -> Void) {
            self.pointer = pointer
            self.handle = handle
        }
    }
}
