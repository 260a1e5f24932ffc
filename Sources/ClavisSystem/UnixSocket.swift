internal import CUnixSocket

/// The Unix-domain stream sockets clavisd and its clients speak over: the calls Swift cannot make directly
/// (`sockaddr_un`, `SO_PEERCRED`, credentials on every byte), each failure the `errno` it left. The C side retries
/// what a signal interrupts.
package enum UnixSocket {
    /// Whose bytes a receive accepts.
    package enum ExpectedSender: Sendable {
        /// Anyone's: credentials are not read.
        case anyone
        /// This process's only (bytes of another fail with `EPROTO`).
        case process(ProcessCredentials)
        /// No one's: the bytes before were sent before credentials were asked for, so none may follow.
        case noOne
    }

    /// The error the last failed call left (`errno`).
    private static var lastError: SystemError { SystemError(clavis_last_errno()) }

    /// A socket connected to the one listening at `path`.
    package static func connect(to path: String) throws(SystemError) -> FileDescriptor {
        let descriptor = clavis_socket_connect(path)
        guard descriptor >= 0 else { throw lastError }
        return FileDescriptor(owning: descriptor)
    }

    /// A socket listening at `path`, made with permissions `mode` (what was there before is replaced).
    package static func listen(at path: String, mode: UInt32) throws(SystemError) -> Int32 {
        let descriptor = clavis_socket_listen(path, mode)
        guard descriptor >= 0 else { throw lastError }
        return descriptor
    }

    /// The next connection to `listening`.
    package static func accept(_ listening: Int32) throws(SystemError) -> Int32 {
        let descriptor = clavis_socket_accept(listening)
        guard descriptor >= 0 else { throw lastError }
        return descriptor
    }

    /// The process at the other end of `descriptor` when it connected.
    package static func peer(of descriptor: Int32) throws(SystemError) -> ProcessCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        guard clavis_socket_peer(descriptor, &pid, &uid, &gid) == 0 else { throw lastError }
        return ProcessCredentials(pid: pid, uid: uid, gid: gid)
    }

    /// Makes a receive on `descriptor` that waits longer than `seconds` fail (`EAGAIN`); false when refused.
    @discardableResult
    package static func limitReceiveWait(_ descriptor: Int32, seconds: Int32) -> Bool {
        clavis_socket_receive_timeout(descriptor, seconds) == 0
    }

    /// Asks the kernel to attach the sending process's credentials to every byte sent to `descriptor`
    /// (`SO_PASSCRED`; a listening socket passes it on to the connections it accepts); false when refused.
    @discardableResult
    package static func passCredentials(_ descriptor: Int32) -> Bool {
        clavis_socket_pass_credentials(descriptor) == 0
    }

    /// How many bytes wait unread in `descriptor`, or `nil` when the socket cannot tell.
    package static func unreadCount(_ descriptor: Int32) -> Int? {
        let count = clavis_socket_unread_count(descriptor)
        return count >= 0 ? Int(count) : nil
    }

    /// Waits up to `milliseconds` for `descriptor` to become readable (-1: none, a plain pause).
    package static func waitReadable(_ descriptor: Int32, milliseconds: Int32) {
        clavis_wait_readable(descriptor, milliseconds)
    }

    /// Sends `head` then `body` in one system call, whole; past `limitSeconds` (0: none) of a peer not reading, the
    /// send fails.
    package static func send(
        _ descriptor: Int32, head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, limitSeconds: Int32
    ) throws(SystemError) {
        guard
            clavis_socket_send_two(
                descriptor, head.baseAddress, head.count, body.baseAddress, body.count, limitSeconds) == 0
        else { throw lastError }
    }

    /// Receives exactly `buffer.count` bytes, every one sent by `expected` (bytes of another process fail with
    /// `EPROTO`); an end of stream before them fails too.
    package static func receiveAll(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, from expected: ExpectedSender = .anyone
    ) throws(SystemError) {
        let result: Int32
        switch expected {
        case .anyone:
            result = clavis_socket_receive_all(descriptor, buffer.baseAddress, buffer.count)
        case .process(let process):
            var sender = process.sender
            result = clavis_socket_receive_all_from(descriptor, buffer.baseAddress, buffer.count, &sender)
        case .noOne:
            // No process is -1: every byte fails the check.
            var sender = clavis_sender(pid: -1, uid: 0, gid: 0)
            result = clavis_socket_receive_all_from(descriptor, buffer.baseAddress, buffer.count, &sender)
        }
        guard result == 0 else { throw lastError }
    }

    /// Receives what has arrived, up to `count` bytes, waiting awake up to `pollMicroseconds` first and then asleep
    /// for the first bytes: the count received, 0 at the end of the stream, negative with `errno` set on a failure.
    package static func receiveSome(
        _ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, pollMicroseconds: UInt32
    ) -> Int {
        clavis_socket_receive_some_polling(descriptor, buffer, count, pollMicroseconds)
    }

    /// As `receiveSome`, with the credentials the kernel attached to the bytes received put in `sender`.
    package static func receiveSome(
        _ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, pollMicroseconds: UInt32,
        sender: inout ProcessCredentials
    ) -> Int {
        var credentials = clavis_sender()
        let received = clavis_socket_receive_credited(descriptor, buffer, count, pollMicroseconds, &credentials)
        sender = ProcessCredentials(credentials)
        return received
    }

    /// Receives what is waiting, up to `count` bytes, never waiting: the count, 0 when nothing waits or at the end.
    package static func receiveWaiting(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        clavis_socket_receive_waiting(descriptor, buffer, count)
    }

    /// The user named `name` in the password database, or `nil` when there is none.
    package static func userID(named name: String) -> UInt32? {
        let uid = clavis_user_id(name)
        return uid >= 0 ? UInt32(uid) : nil
    }
}

extension ProcessCredentials {
    fileprivate init(_ sender: clavis_sender) { self.init(pid: sender.pid, uid: sender.uid, gid: sender.gid) }

    fileprivate var sender: clavis_sender { clavis_sender(pid: pid, uid: uid, gid: gid) }
}
