import ClavisCore
import ClavisTestSupport
import Foundation
import Glibc

/// A real `swtpm` for a test: a TPM 2.0 with its state in a temporary folder, on two free TCP ports (commands and
/// control), started here and stopped (its folder removed) when released.
final class SoftwareTPM {
    /// The swtpm binary, when installed.
    static let executable: String? = {
        let candidates = ["/usr/bin/swtpm", "/usr/local/bin/swtpm"]
        return candidates.first { access($0, X_OK) == 0 }
    }()

    /// The command port; the control port is the next one.
    let port: UInt16
    /// The TPM's state folder.
    let stateFolder: String
    private let process = Process()

    /// The TCTI string that reaches this TPM.
    var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// Starts a fresh TPM (a new endorsement and owner seed) and returns once it accepts connections.
    init() throws {
        stateFolder = try makeTemporaryFolder("swtpm")
        port = try Self.freePortPair()
        // .ci/run installs swtpm: a machine without it fails these tests rather than skipping them.
        guard let executable = Self.executable else {
            throw SoftwareTPMMissing(message: "swtpm is not installed (Debian: swtpm, swtpm-tools)")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "socket", "--tpm2", "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1", "--ctrl",
            "type=tcp,port=\(port + 1),bindaddr=127.0.0.1", "--tpmstate", "dir=\(stateFolder)", "--flags",
            "not-need-init,startup-clear",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntilListening()
    }

    deinit {
        // swtpm may sit in a read and not act on SIGTERM; its state is thrown away anyway.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: stateFolder)
    }

    /// Polls the command port until swtpm accepts a connection (or exits, or 20 s pass).
    private func waitUntilListening() throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw TestFailure("swtpm exited with status \(process.terminationStatus)") }
            if Self.accepts(port) && Self.accepts(port + 1) { return }
            // Poll the port again after a short pause: nothing else tells when swtpm listens.
            usleep(5_000)
        }
        throw TestFailure("swtpm did not listen on port \(port) within 20 s")
    }

    /// True when something accepts a TCP connection on 127.0.0.1 at `port`.
    private static func accepts(_ port: UInt16) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Two consecutive ports nothing listens on: the kernel hands out a free one, and the next must be free too.
    private static func freePortPair() throws -> UInt16 {
        for _ in 0..<50 {
            guard let port = bindable(0), port < UInt16.max, bindable(port + 1) != nil else { continue }
            return port
        }
        throw TestFailure("found no two free consecutive ports")
    }

    /// Binds a TCP socket on 127.0.0.1 at `port` (0: any) and returns the port bound, or `nil` when taken.
    private static func bindable(_ port: UInt16) -> UInt16? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = loopback(port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}

/// A failure of the test's own set-up, with its reason.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// swtpm, which the TPM tests start, is not on this machine.
struct SoftwareTPMMissing: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
