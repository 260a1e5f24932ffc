internal import CSystemdLibrary

/// What the daemon tells and asks systemd: the socket it passed (socket activation) and readiness (`Type=notify`).
public enum ServiceManager {
    /// The listening socket systemd passed (`LISTEN_FDS`), or `nil` when the daemon was not socket-activated.
    public static func passedSocket() -> Int32? {
        let descriptor = clavis_systemd_listening_socket()
        return descriptor >= 0 ? descriptor : nil
    }

    /// Tells systemd the daemon is ready (`READY=1`); nothing when no service manager listens.
    public static func notifyReady() {
        clavis_systemd_notify_ready()
    }
}
