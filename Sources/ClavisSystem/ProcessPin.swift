internal import CUnixSocket

/// A process pinned by a pidfd: a descriptor bound to that process, not to its pid.
package enum ProcessPin {
    /// A pidfd pinning process `pid` (`pidfd_open`); `nil` when it cannot be pinned (it has ended).
    package static func open(_ pid: Int32) -> FileDescriptor? {
        let pidfd = clavis_pidfd_open(pid)
        return pidfd >= 0 ? FileDescriptor(owning: pidfd) : nil
    }

    /// True while the process `pidfd` pins is still running (this needs no permission over it).
    package static func isAlive(_ pidfd: Int32) -> Bool {
        clavis_pidfd_is_alive(pidfd) == 1
    }
}
