import ClavisCore
import ClavisEmbedded
import ClavisIPC
import FoundationEssentials

/// One connection to clavisd, served request by request, each for the process that sent it.
///
/// Identity is bound to the request, not the connection: the kernel attaches the sending process's credentials to
/// every byte (`SCM_CREDENTIALS`, which a process cannot forge without `CAP_SYS_ADMIN`), so a socket inherited by a
/// child, kept across an exec or passed over `SCM_RIGHTS` speaks only for the process that writes on it. Each sending
/// process is identified once per connection (its executable opened while a pidfd pins it), and then:
/// - a frame it began sending before it was identified is answered `sendAgain`: it may come from the program the
///   process ran before an exec, which nothing in /proc tells apart afterwards (the client sends it again);
/// - before each later frame, the process must still run the very file it was identified by (one `fstatat` of its
///   /proc folder, opened while pinned): an exec since, or an exit and a new process with its pid, ends the
///   connection.
///
/// So every request answered was sent by a process that ran the identified program from before the request was sent
/// until after it arrived.
final class ConnectionSession {
    /// The most processes that may send on one connection; one more ends it. (Each identified process holds two
    /// descriptors: with 64 connections a user, 512 a user.)
    static let sendersPerConnection = 4

    private let daemon: KeychainDaemon
    private let connection: SocketConnection
    /// The processes that sent on this connection, by process id.
    private var senders: [Int32: Sender] = [:]

    /// One process that sent on the connection, as it was identified.
    private struct Sender {
        let credentials: FrameSender
        /// The process as far as it was found (its executable, and why it is served as unregistered or not at all),
        /// whether or not it is served.
        let process: PeerProcess?
        /// What answers its requests, or why none does.
        let service: Result<EmbeddedKeychainService, KeychainError>
        /// Where the stream stood once the process was identified: a frame of its that begins before this was sent
        /// before it was identified.
        let identifiedAt: UInt64

        /// The process, when it was identified and its requests are answered by `service`.
        var servedProcess: PeerProcess? {
            guard case .success = service else { return nil }
            return process
        }
    }

    /// A session on `connection`, whose peer connected as `connected` (identified at once, so that a client that
    /// is slower to send than the daemon is to identify it is answered on its first try).
    init(daemon: KeychainDaemon, connection: SocketConnection, connected: FrameSender) {
        self.daemon = daemon
        self.connection = connection
        senders[connected.pid] = identify(connected)
    }

    /// Answers requests until the connection closes, sends something malformed, or a sender is no longer the
    /// process it was identified as.
    func run() {
        while true {
            let received: Frame?
            do {
                received = try connection.receive()
            } catch {
                // A client of another Clavis learns which version this daemon speaks; anything else malformed ends
                // the connection without a word.
                if connection.peerVersion != nil { connection.sendVersionNotice() }
                return
            }
            guard var frame = received else { return }
            // The body's memory counts against the user's budget until the request has been answered.
            defer { connection.budget?.release(frame.budgeted) }
            guard let credentials = frame.sender, credentials.pid > 0, let sender = sender(credentials) else {
                frame.wipe()
                return
            }
            switch admission(of: frame, from: sender) {
            case .answer: break
            case .sendAgain:
                frame.wipe()
                guard reply(.sendAgain, to: frame.requestID) else { return }
                continue
            case .end:
                frame.wipe()
                return
            }
            let request: Request
            do {
                // The reader shares the frame's storage: it ends here, so that the wipe below zeroes the bytes the
                // request (a passcode, a secret) arrived in rather than a copy.
                var reader = ByteReader(frame.body, subject: "a keychain request")
                request = try Request(from: &reader)
            } catch {
                frame.wipe()
                return
            }
            frame.wipe()
            guard answer(request, id: frame.requestID, from: sender) else { return }
        }
    }

    /// What becomes of a frame.
    private enum Admission {
        /// Answered for its sender.
        case answer
        /// Answered `sendAgain`: sent before its sender was identified.
        case sendAgain
        /// The connection ends.
        case end
    }

    /// What becomes of `frame`, sent by `sender`.
    private func admission(of frame: Frame, from sender: Sender) -> Admission {
        // Not identified (gone, or not inspectable): answered with the reason, and looked at again on its next
        // request (a client lets its own user's daemon look into it only once connected).
        guard let peer = sender.servedProcess else { return .answer }
        if frame.offset < sender.identifiedAt { return .sendAgain }
        // A process that exec'd another program (or ended, its pid taken by another) since it was identified is not
        // answered as the first one: the connection ends, and the new program connects (and is identified) anew.
        return peer.stillRunsTheIdentifiedProgram() ? .answer : .end
    }

    /// The sender with `credentials`, identified now if it is new to the connection, changed its user or group, or
    /// could not be identified before; `nil` once the connection has had `sendersPerConnection`.
    private func sender(_ credentials: FrameSender) -> Sender? {
        if let known = senders[credentials.pid], known.credentials == credentials, known.servedProcess != nil {
            return known
        }
        guard senders[credentials.pid] != nil || senders.count < Self.sendersPerConnection else { return nil }
        let identified = identify(credentials)
        senders[credentials.pid] = identified
        return identified
    }

    /// Identifies the process `credentials` name, and notes where the stream stands once it is identified.
    private func identify(_ credentials: FrameSender) -> Sender {
        var process: PeerProcess?
        let service: Result<EmbeddedKeychainService, KeychainError>
        do throws(KeychainError) {
            var identified = try PeerProcess.identify(
                pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, pidfd: -1)
            // Kept whether or not it is served: the access log names its executable and why.
            defer { process = identified }
            service = .success(try daemon.service(for: &identified))
        } catch {
            service = .failure(error)
        }
        // Measured after the identification: whatever the process sends from here on, it sent as what was found.
        let identifiedAt = connection.arrivedBytes() ?? .max
        return Sender(credentials: credentials, process: process, service: service, identifiedAt: identifiedAt)
    }

    /// Carries out `request` for `sender`, records it in the access log and sends the answer; false when the answer
    /// could not be sent.
    private func answer(_ request: Request, id requestID: UInt32, from sender: Sender) -> Bool {
        var response: Response
        let subject: RequestHandler.Subject
        switch sender.service {
        case .success(let service):
            (response, subject) = RequestHandler.answer(request, with: service) { query in
                daemon.accessLog.lines(matching: query, viewer: sender.credentials.uid)
            }
            daemon.idleLock?.noteActivity(on: service.home, at: .now)
        case .failure(let error):
            response = .failure(error)
            subject = RequestHandler.subject(of: request, defaultGroup: nil)
        }
        var writer = Self.encoded(&response)
        let (status, outcome) = RequestHandler.outcome(of: response)
        let entry = AccessLogEntry(
            time: Date(), uid: sender.credentials.uid, pid: sender.credentials.pid,
            executable: sender.process?.executable,
            application: (try? sender.service.get())?.entitlements.applicationIdentifier,
            operation: subject.operation, itemClass: subject.itemClass?.rawValue, accessGroups: subject.accessGroups,
            items: subject.items.map { Data($0.bytes).base64EncodedString() }, status: status, outcome: outcome,
            unregisteredBecause: sender.process?.unregisteredBecause)
        // Handed to the log before the answer goes out and written after it, while the caller reads its answer:
        // whatever it asks next (`clavis log`) still finds the entry. A question to the log is itself written
        // before its answer, so that once it is answered the files hold everything answered until then.
        let announcement: AccessLog.Announcement?
        if case .accessLog = request {
            daemon.accessLog.record(entry)
            announcement = nil
        } else {
            announcement = daemon.accessLog.announce(entry)
        }
        let sent = send(&writer, to: requestID)
        if let announcement { daemon.accessLog.record(announcement) }
        return sent
    }

    /// Sends `response` as the answer to `requestID`; false when it could not be sent.
    private func reply(_ response: Response, to requestID: UInt32) -> Bool {
        var response = response
        var writer = Self.encoded(&response)
        return send(&writer, to: requestID)
    }

    /// The bytes of `response`; one too large for a frame becomes an error saying so (`response` too).
    private static func encoded(_ response: inout Response) -> ByteWriter {
        var writer = ByteWriter()
        response.encode(to: &writer)
        if writer.bytes.count > Frame.maximumBodySize {
            writer.wipe()
            response = .failure(
                KeychainError(
                    .allocate,
                    "the answer is larger than \(Frame.maximumBodySize) bytes: ask for fewer items or fewer secrets"))
            writer = ByteWriter()
            response.encode(to: &writer)
        }
        return writer
    }

    /// Sends the bytes in `writer` as the answer to `requestID`, wiping them after; false when they could not be
    /// sent.
    private func send(_ writer: inout ByteWriter, to requestID: UInt32) -> Bool {
        var frame = Frame(requestID: requestID, body: writer.bytes)
        writer.wipe()
        defer { frame.wipe() }
        do {
            try connection.send(frame)
            return true
        } catch {
            return false
        }
    }
}
