import ClavisCore
import ClavisSystem
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A clavisd of the kit's own, in user mode: its socket, state and app registry in the kit's folder, its standard
/// error kept as its log. Started with `start()`, stopped (SIGTERM, then waited for) with `stop()`.
final class PrivateDaemon: Sendable {
    /// The clavisd executable.
    let executable: String
    /// The socket it listens on.
    let socket: String
    /// The registry folder it reads.
    let registry: String
    /// The sensor script it reads.
    let biometryScript: String
    private let process = Mutex<pid_t?>(nil)
    private let log = Mutex("")
    private let logGrew = DispatchSemaphore(value: 0)

    /// A daemon run from `executable`, in `folder`, whose sensor reads `biometryScript`; nothing runs until `start()`.
    init(executable: String, folder: String, biometryScript: String) {
        self.executable = executable
        socket = folder + "/clavisd.sock"
        registry = folder + "/apps.d"
        self.biometryScript = biometryScript
    }

    /// Starts the daemon on the keychain in `state` and returns once it listens.
    ///
    /// - Throws: `io` when it cannot be started or ends before it listens, with what it said.
    func start(state: String) throws(KeychainError) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw KeychainError(.io, "cannot make a pipe for clavisd's log") }
        // Other children of this process must not hold the log open: only the daemon's copy (its descriptor 2).
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let arguments = [
            "--user", "--socket", socket, "--state", state, "--registry", registry, "--biometry-script",
            biometryScript,
        ]
        let spawned = ChildProcess.startInBackground(executable, arguments, errorDescriptor: pipeEnds[1])
        close(pipeEnds[1])
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            close(pipeEnds[0])
            throw KeychainError(.io, "cannot start \(executable): \(error)")
        }
        process.withLock { $0 = pid }
        // This start's own "listening on", not an earlier start's.
        let earlier = log.withLock { $0.utf8.count }
        copyLog(from: pipeEnds[0])
        let said = waitForLog("listening on", after: earlier)
        guard said.contains("listening on") else {
            stop()
            throw KeychainError(.io, "clavisd did not start: \(said)")
        }
    }

    /// Stops the daemon and waits for it to end.
    func stop() {
        guard
            let pid = process.withLock({ running -> pid_t? in
                defer { running = nil }
                return running
            })
        else { return }
        kill(pid, SIGTERM)
        ChildProcess.waitForExit(pid)
    }

    /// What the daemon wrote to its standard error so far.
    var logText: String { log.withLock { $0 } }

    /// What the daemon wrote, once what it wrote after the first `offset` bytes contains `text` (or the daemon ended,
    /// its log closed).
    func waitForLog(_ text: String, after offset: Int = 0) -> String {
        while true {
            let (written, closed) = log.withLock { ($0, reading.withLock { $0.closed }) }
            if String(decoding: written.utf8.dropFirst(offset), as: UTF8.self).contains(text) || closed {
                return written
            }
            logGrew.wait()
        }
    }

    /// Which start's log is being read, and whether it ended (an earlier start's reader may end late).
    private let reading = Mutex((generation: 0, closed: false))

    /// Copies the daemon's standard error into `log` on a thread of its own until the daemon closes it.
    private func copyLog(from descriptor: Int32) {
        let generation = reading.withLock { reading in
            reading = (reading.generation + 1, false)
            return reading.generation
        }
        DispatchQueue.global().async { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = SystemCall.retrying { read(descriptor, &buffer, buffer.count) }
                if count <= 0 { break }
                let chunk = String(decoding: buffer[0..<count], as: UTF8.self)
                log.withLock { $0 += chunk }
                logGrew.signal()
            }
            close(descriptor)
            reading.withLock { if $0.generation == generation { $0.closed = true } }
            logGrew.signal()
        }
    }
}
