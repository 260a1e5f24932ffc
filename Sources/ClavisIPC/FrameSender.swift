import ClavisSystem

/// The process that sent a frame, as the kernel attached it to the bytes (`SCM_CREDENTIALS`): never as the sender
/// says. Bytes sent before the receiver asked for credentials carry none (process 0).
public struct FrameSender: Sendable, Hashable {
    /// The sending process.
    public var pid: Int32
    /// Its user.
    public var uid: UInt32
    /// Its group.
    public var gid: UInt32

    /// The sender `pid`, `uid`, `gid`.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    init(_ credentials: UnixSocket.Credentials) {
        pid = credentials.pid
        uid = credentials.uid
        gid = credentials.gid
    }

    /// The sender as the socket layer names one.
    var credentials: UnixSocket.Credentials { UnixSocket.Credentials(pid: pid, uid: uid, gid: gid) }
}
