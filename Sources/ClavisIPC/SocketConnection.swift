public import ClavisCore
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One end of a Unix-domain stream socket, owning its descriptor (closed when the connection ends), sending and
/// receiving frames. Not for concurrent use: its owner serialises calls.
public final class SocketConnection {
    /// The socket.
    private let socket: FileDescriptor
    /// Its descriptor's number.
    public var descriptor: Int32 { socket.rawValue }

    /// How long a receive that finds nothing waits awake (polling, and yielding the processor between tries) before
    /// it sleeps, in microseconds; 0 sleeps at once.
    ///
    /// Waking a sleeping thread takes the kernel a wake-up across processors: 20 to 40 µs in a virtual machine,
    /// longer than the daemon takes for a read, and about 100 µs once the waiting processor has gone idle. A client
    /// waits awake for its answer, and the daemon for the next request of a client that calls in a row; either
    /// sleeps once the wait runs longer (a slow write, an idle connection), having spent at most this much processor
    /// time.
    public let pollMicroseconds: UInt32

    /// True when every frame received names the process that sent it (`Frame.sender`), as the kernel tells it.
    public let readsSenders: Bool

    /// Takes ownership of `descriptor`; receives wait awake for up to `pollMicroseconds` before they sleep. With
    /// `readsSenders`, the kernel attaches the sending process's credentials to every byte (`SO_PASSCRED`), each frame
    /// names its sender, and a frame whose bytes two processes wrote is refused.
    public init(descriptor: Int32, pollMicroseconds: UInt32 = 0, readsSenders: Bool = false) {
        socket = FileDescriptor(owning: descriptor)
        self.pollMicroseconds = pollMicroseconds
        self.readsSenders = readsSenders
        if readsSenders { UnixSocket.passCredentials(descriptor) }
    }

    /// Where in the stream the bytes that have reached this end (read or waiting in the socket) end: anything past
    /// it was sent after this call began. `nil` when the socket cannot tell.
    public func arrivedBytes() -> UInt64? {
        guard let waiting = UnixSocket.unreadCount(descriptor) else { return nil }
        return receivedBytes + UInt64(waiting)
    }

    /// How many bytes this end has taken from the socket.
    private var receivedBytes: UInt64 = 0
    /// The process that sent the bytes waiting in the read-ahead buffer (with `readsSenders`).
    private var readAheadSender: FrameSender?

    /// How long a client waits awake for an answer before it sleeps: reads, and a write whose `fdatasync` takes what
    /// a disk's usually does, are answered within it. With 100 µs a write's client slept and its wake-up added about
    /// 100 µs to every `SecItemAdd` through clavisd (420 against 312 µs at p50 here).
    public static let clientPollMicroseconds: UInt32 = 1000

    /// Connects to the socket at `path`.
    ///
    /// - Throws: `notAvailable` naming the socket and the system's reason when nothing answers there.
    public convenience init(connectingTo path: String) throws(KeychainError) {
        let socket: FileDescriptor
        do throws(SystemError) {
            socket = try UnixSocket.connect(to: path)
        } catch {
            throw KeychainError(.notAvailable, "no keychain daemon answers at \(path): \(error)")
        }
        // Nothing is sent to a socket whose listener is not a keychain daemon this process may trust.
        let uid: UInt32
        do throws(SystemError) {
            uid = try UnixSocket.peer(of: socket.rawValue).uid
        } catch {
            throw KeychainError(.notAvailable, "cannot tell who listens at \(path): \(error)")
        }
        guard Self.isTrustedDaemonUser(uid) else {
            throw KeychainError(
                .notAvailable,
                "refusing to talk to \(path): its listener runs as user \(Self.userName(uid)) (uid \(uid)), not as root, "
                    + "the \(Self.systemDaemonUser) system user or this user")
        }
        // A daemon that stops answering (hung, or stopped in a debugger) fails the call rather than the process.
        UnixSocket.limitReceiveWait(socket.rawValue, seconds: Self.answerTimeoutSeconds)
        self.init(descriptor: socket.release(), pollMicroseconds: Self.clientPollMicroseconds)
        // This user's own daemon runs without privileges: it identifies this process through /proc, which a
        // non-dumpable process shows only to CAP_SYS_PTRACE. Core dumps stay off (README, "Threat model").
        if uid == getuid() && uid != 0 { ProcessLimits.allowInspectionByOwnUser() }
    }

    /// The user the system daemon runs as (`systemd/clavis.sysusers`).
    public static let systemDaemonUser = "clavis"

    /// True for a user a client trusts to listen as its keychain daemon: root, its own user (the user daemon), and
    /// the system daemon's user (looked up only when the listener is neither of the others).
    static func isTrustedDaemonUser(_ uid: UInt32) -> Bool {
        uid == 0 || uid == getuid() || UnixSocket.userID(named: systemDaemonUser) == uid
    }

    /// The name of user `uid`, or its number when it has none.
    private static func userName(_ uid: UInt32) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }

    /// Limits how long one send may take while the peer does not read (a full socket buffer): past `seconds` from
    /// its start, whatever the peer read meanwhile, the send fails with `io` and the frame is not delivered whole.
    public func limitSendWait(seconds: Int32) {
        sendLimitSeconds = seconds
    }

    /// The limit `limitSendWait` set; 0 for none.
    private var sendLimitSeconds: Int32 = 0

    /// How long a client waits for an answer before the call fails with `io`.
    public static let answerTimeoutSeconds: Int32 = 120

    /// Sends one frame.
    ///
    /// - Throws: `io` when the peer is gone.
    public func send(_ frame: Frame) throws(KeychainError) {
        // Header and body in one system call (the peer's read finds the whole frame at once), without copying the
        // body behind the header.
        var header = ByteWriter()
        frame.writeHeader(to: &header)
        let sent = header.bytes.withUnsafeBytes { head in
            frame.body.withUnsafeBytes { body in
                Result { () throws(SystemError) in
                    try UnixSocket.send(descriptor, head: head, body: body, limitSeconds: sendLimitSeconds)
                }
            }
        }
        if case .failure(let error) = sent {
            throw KeychainError(.io, "the keychain connection is closed: \(error)")
        }
    }

    /// Receives one frame; `nil` when the peer closed the connection between frames.
    ///
    /// - Throws: `io` when the connection breaks mid-frame; `decode` for a frame that is not Clavis's or is
    ///   larger than `Frame.maximumBodySize`.
    public func receive() throws(KeychainError) -> Frame? {
        // One receive usually brings the header and the whole body of a small frame: one system call per frame.
        while readAhead.count < Frame.headerSize {
            // A header of another version is known by its first five bytes, checked before each wait for more (a
            // receive that fails or ends adds none): a Clavis whose header is shorter than this one's may send no
            // more (`sendVersionNotice`).
            try refuseOtherVersion()
            // Waiting for a frame to begin, the connection may wait awake; the rest of a frame follows at once.
            guard try fillReadAhead(polling: readAhead.isEmpty) else {
                if readAhead.isEmpty { return nil }
                throw KeychainError(.io, "the keychain connection broke in the middle of a message")
            }
        }
        try refuseOtherVersion()
        let offset = receivedBytes - UInt64(readAhead.count)
        let sender = readAheadSender
        let (requestID, length) = try Frame.readHeader(readAhead.take(Frame.headerSize))
        // The body grows as its bytes arrive, each growth reserved from the budget first: a header alone (saying
        // 64 MiB and sending nothing) costs the receiver nothing, and no more is held than the budget allows.
        var body = ArrivingBody(length: length, budget: budget)
        do throws(KeychainError) {
            while body.count < length {
                if readAhead.isEmpty && length - body.count >= ReadAhead.capacity {
                    try receiveDirectly(
                        into: &body, count: min(length - body.count, Self.directReceiveSize), from: sender)
                    continue
                }
                if readAhead.isEmpty {
                    guard try fillReadAhead(continuing: sender) else {
                        throw KeychainError(.io, "the keychain connection broke in the middle of a message")
                    }
                }
                try body.append(upTo: length - body.count, from: &readAhead)
            }
        } catch {
            body.abandon()
            throw error
        }
        var frame = Frame(requestID: requestID, body: body.bytes)
        frame.sender = sender
        frame.offset = offset
        frame.budgeted = body.reserved
        return frame
    }

    /// Throws `Frame.versionMismatch` (and notes the version) when the waiting bytes begin a header of another
    /// protocol version.
    private func refuseOtherVersion() throws(KeychainError) {
        guard let version = otherVersionWaiting() else { return }
        throw Frame.versionMismatch(peer: version)
    }

    /// The version the waiting bytes' header names when it is another one, noted in `peerVersion`.
    private func otherVersionWaiting() -> UInt8? {
        guard let version = readAhead.withWaitingBytes(Frame.otherVersion) else { return nil }
        peerVersion = version
        return version
    }

    /// After a send failed: the protocol version of a notice the peer left before closing, if it left one (a daemon
    /// of another version answers the start of a frame it cannot read and closes, so a frame larger than the
    /// socket's buffer fails to send with the notice unread). Never waits.
    public func versionNoticeLeft() -> UInt8? {
        if readAhead.count < Frame.headerSize {
            let received = readAhead.fill { UnixSocket.receiveWaiting(descriptor, into: $0, count: $1) }
            receivedBytes += UInt64(max(received, 0))
        }
        return otherVersionWaiting()
    }

    /// The protocol version the peer's last header named when it was not this program's; nil otherwise.
    public private(set) var peerVersion: UInt8?

    /// Tells a peer that spoke another protocol version which one this end speaks: a frame header of this version
    /// with request id 0 and no body. Its first five bytes (`CLVS` and the version) keep their place in every
    /// version, so a client of any Clavis can name both versions rather than see the connection close.
    public func sendVersionNotice() {
        try? send(Frame(requestID: 0, body: []))
    }

    /// Bytes received ahead of the frame being read (the rest of a frame whose header came with them); zeroed
    /// once read and when the connection ends.
    private var readAhead = ReadAhead()

    /// One receive into the read-ahead buffer, waiting awake first when `polling`; false at the end of the stream.
    /// With `readsSenders`, the bytes must come from the process that sent those already waiting, or from `continuing`
    /// (the sender of the frame being read), when either is known.
    private func fillReadAhead(polling: Bool = false, continuing frameSender: FrameSender? = nil)
        throws(KeychainError) -> Bool
    {
        let poll = polling ? pollMicroseconds : 0
        guard readsSenders else {
            let received = readAhead.fill {
                UnixSocket.receiveSome(descriptor, into: $0, count: $1, pollMicroseconds: poll)
            }
            guard received >= 0 else { throw Self.broken() }
            receivedBytes += UInt64(max(received, 0))
            return received > 0
        }
        var sender = FrameSender(pid: 0, uid: 0, gid: 0)
        let expected = readAhead.isEmpty ? frameSender : readAheadSender
        let received = readAhead.fill {
            UnixSocket.receiveSome(descriptor, into: $0, count: $1, pollMicroseconds: poll, sender: &sender)
        }
        guard received >= 0 else { throw Self.broken() }
        guard received > 0 else { return false }
        receivedBytes += UInt64(received)
        if let expected, expected != sender { throw Self.twoWriters() }
        readAheadSender = sender
        return true
    }

    /// The error of a receive that failed.
    private static func broken() -> KeychainError {
        KeychainError(.io, "the keychain connection broke: \(SystemError(errno))")
    }

    /// The error of a frame whose bytes two processes wrote.
    private static func twoWriters() -> KeychainError {
        KeychainError(.decode, "two processes wrote into one keychain message")
    }

    /// How many bytes of a large body one receive takes at most, straight onto the body's end.
    static let directReceiveSize = 64 * 1024

    /// Receives `count` bytes straight onto the end of `body` (a large body, past the read-ahead buffer); with
    /// `readsSenders`, every byte must come from `sender`.
    private func receiveDirectly(into body: inout ArrivingBody, count: Int, from sender: FrameSender?)
        throws(KeychainError)
    {
        var chunk = [UInt8](repeating: 0, count: count)
        defer { Frame.wipe(&chunk) }
        // A frame begun without credentials (none were asked for yet) cannot continue with any.
        let expected: UnixSocket.ExpectedSender = readsSenders ? sender.map { .process($0) } ?? .noOne : .anyone
        let received = chunk.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemError) in
                try UnixSocket.receiveAll(descriptor, into: buffer, from: expected)
            }
        }
        guard case .success = received else {
            throw KeychainError(.io, "the keychain connection broke in the middle of a message")
        }
        receivedBytes += UInt64(count)
        try body.append(chunk)
    }

    /// What the bodies of frames being received may hold in memory; unlimited when `nil`. A frame's reservation
    /// (`Frame.budgeted`) is given back by whoever is done with it.
    public var budget: (any FrameBudget)?
}
