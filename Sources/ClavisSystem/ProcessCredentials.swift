/// A process as the kernel names it on a Unix socket: at connect time (`SO_PEERCRED`) or attached to the bytes it
/// sent (`SCM_CREDENTIALS`), never as the process says. Process 0 for bytes sent before credentials were asked for.
public struct ProcessCredentials: Sendable, Hashable {
    /// The process.
    public var pid: Int32
    /// Its user.
    public var uid: UInt32
    /// Its group.
    public var gid: UInt32

    /// The process `pid` of user `uid` and group `gid`.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}
