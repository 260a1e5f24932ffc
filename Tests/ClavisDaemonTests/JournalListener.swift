import ClavisTestSupport
import Foundation
import Synchronization

@testable import ClavisServer

/// What reaches the systemd journal while a test runs. Without a journal on the machine (CI, containers), it plays
/// journald's native socket (`/run/systemd/journal/socket`, a datagram socket) and keeps every datagram; with one, it
/// reads the journal through `journalctl`. Start it before the daemon, which looks for a journal when it starts.
final class JournalListener: @unchecked Sendable {
    static let socketPath = "/run/systemd/journal/socket"
    private let descriptor: Int32
    private let received = Received()

    /// The datagrams received, shared with the reading thread.
    private final class Received: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }
    private var createdFolders: [String] = []
    private var reader: Thread?
    private let gate = Gate()
    /// Signalled when the reader's loop ends, so that its socket is closed only once nothing reads it.
    private let readerEnded = DispatchSemaphore(value: 0)

    /// Whether the reader may take datagrams: a paused one leaves them in the socket, whose queue fills, and the
    /// sender then blocks as it does on a journal that stalls.
    private final class Gate: @unchecked Sendable {
        let condition = NSCondition()
        var paused = false

        func waitWhilePaused() {
            condition.lock()
            while paused { condition.wait() }
            condition.unlock()
        }

        func set(paused: Bool) {
            condition.lock()
            self.paused = paused
            condition.broadcast()
            condition.unlock()
        }
    }

    /// True when this listener plays the journal's socket (no journal runs): only then can it stall.
    var playsTheSocket: Bool { descriptor >= 0 }

    /// Stops taking datagrams, as a stalled journal (one more may still be taken).
    func pause() { gate.set(paused: true) }

    /// Takes datagrams again.
    func resume() { gate.set(paused: false) }

    init() throws {
        guard !JournalCopy.isAvailable else {
            descriptor = -1  // a real journal runs: read it with journalctl
            return
        }
        // A socket nobody listens on is left from a run that crashed while it played the journal: played anew.
        var info = stat()
        if lstat(Self.socketPath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK { unlink(Self.socketPath) }
        for folder in ["/run/systemd", "/run/systemd/journal"] where !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            chmod(folder, 0o755)
            createdFolders.append(folder)
        }
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = Self.address
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, bound == 0 else {
            throw TestDaemon.DaemonFailure(
                message: "cannot play the journal's socket: \(String(cString: strerror(errno)))")
        }
        chmod(Self.socketPath, 0o666)  // a system-mode daemon runs as its own user
        let listening = descriptor
        let thread = Thread { [received, gate, readerEnded] in
            var buffer = [UInt8](repeating: 0, count: 1 << 17)
            defer { readerEnded.signal() }
            while true {
                gate.waitWhilePaused()
                let count = buffer.withUnsafeMutableBytes { recv(listening, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                received.bytes.withLock { $0 += buffer[0..<count] + [0x0A] }
            }
        }
        thread.start()
        reader = thread
    }

    /// The journal's socket address.
    static var address: sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in socketPath.utf8.enumerated() { path[index] = byte }
        }
        return address
    }

    /// Everything the journal received from process `pid` (all of what reached the played socket), once it holds at
    /// least `entries` clavisd entries (the daemon sends them from a queue of its own) or ten seconds went by.
    func text(from pid: Int32, entries: Int) throws -> String {
        try text(from: pid) { $0.components(separatedBy: "MESSAGE_ID=").count - 1 >= entries }
    }

    /// Everything the journal received from process `pid`, once it holds `marker` or ten seconds went by.
    func text(from pid: Int32, containing marker: String) throws -> String {
        try text(from: pid) { $0.contains(marker) }
    }

    private func text(from pid: Int32, until isComplete: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        var text = try self.text(from: pid)
        while !isComplete(text) && Date() < deadline {
            usleep(20_000)
            text = try self.text(from: pid)
        }
        return text
    }

    private func text(from pid: Int32) throws -> String {
        if descriptor < 0 {
            return try runProcess(
                "/usr/bin/journalctl", ["--no-pager", "-o", "export", "_PID=\(pid)"]
            ).standardOutput
        }
        return received.bytes.withLock { String(decoding: $0, as: UTF8.self) }
    }

    /// Stops playing the socket and removes what it created.
    func stop() {
        guard descriptor >= 0 else { return }
        resume()
        // An empty datagram ends the reader's receive loop; then the socket goes.
        let waker = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = Self.address
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(waker, nil, 0, 0, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(waker)
        unlink(Self.socketPath)
        _ = readerEnded.wait(timeout: .now() + 10)
        close(descriptor)
        for folder in createdFolders.reversed() { rmdir(folder) }
    }
}
