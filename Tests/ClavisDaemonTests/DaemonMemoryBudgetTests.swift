import ClavisTestSupport
import Foundation
import Testing

/// What clients make the daemon hold for requests is bounded: 64 connections that each send most of a 63 MiB frame
/// grow it by at most its per-user budget for one user, and twice that for two (README, "The daemon's limits").
@Suite(.serialized) final class DaemonMemoryBudgetTests {
    /// Opens 64 connections at once, sends each a header announcing 63 MiB and then 62 MiB of it in 1 MiB pieces
    /// (until the daemon closes it), prints how many were cut off, then holds them open until standard input closes.
    private static let flood = #"""
        import socket, struct, sys, threading
        path = sys.argv[1]
        length, sent_part, piece = 63 << 20, 62 << 20, b"\x00" * (1 << 20)
        connections, cut = [], []
        def send(index):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            connections.append(s)
            try:
                s.sendall(b"CLVS" + struct.pack(">BII", 4, 1, length))
                for _ in range(sent_part >> 20):
                    s.sendall(piece)
            except OSError:
                cut.append(index)
        threads = [threading.Thread(target=send, args=(i,)) for i in range(64)]
        for thread in threads: thread.start()
        for thread in threads: thread.join()
        print("cut off", len(cut), flush=True)
        sys.stdin.read()
        """#

    /// The daemon's resident and peak resident memory, in KiB.
    private func memory(of pid: Int32) throws -> (resident: Int, peak: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func value(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return (value("VmRSS"), value("VmHWM"))
    }

    /// Runs the flood as each of `users` at once; returns what each printed once all are holding their connections,
    /// and the pipes that end them.
    private func flood(_ daemon: TestDaemon, as users: [SecondUser], script: String) throws -> [String] {
        var floods: [(Process, Pipe, Pipe)] = []
        for user in users {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = [
                "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/usr/bin/python3", script,
                daemon.socket,
            ]
            let output = Pipe()
            let input = Pipe()
            process.standardOutput = output
            process.standardInput = input
            try process.run()
            floods.append((process, output, input))
        }
        var said: [String] = []
        for (_, output, _) in floods {
            var line = ""
            while !line.hasSuffix("\n") {
                let data = output.fileHandleForReading.availableData
                guard !data.isEmpty else { break }
                line += String(decoding: data, as: UTF8.self)
            }
            said.append(line)
        }
        peakWhileHeld = try memory(of: daemon.pid).peak
        for (process, _, input) in floods {
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        return said
    }

    private var peakWhileHeld = 0

    @Test func oneUserAndThenTwoGrowTheDaemonOnlyWithinTheirBudgets() throws {
        let first = try SecondUser()
        let second = try SecondUser()
        defer {
            first.remove()
            second.remove()
        }
        let daemon = try TestDaemon(mode: "system")
        defer { daemon.stop() }
        let script = daemon.folder + "/flood.py"
        try Self.flood.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let before = try memory(of: daemon.pid).resident
        let perUser = 128 * 1024
        // Besides the bodies: each connection's own buffers (80 KiB) and thread, and the daemon's other allocations.
        let slack = 32 * 1024
        let one = try flood(daemon, as: [first], script: script)
        #expect(one.allSatisfy { $0.hasPrefix("cut off") && $0 != "cut off 0\n" }, "\(one)")
        #expect(peakWhileHeld - before < perUser + slack, "grew by \((peakWhileHeld - before) / 1024) MiB")
        let two = try flood(daemon, as: [first, second], script: script)
        #expect(two.count == 2)
        #expect(peakWhileHeld - before < 2 * perUser + slack, "grew by \((peakWhileHeld - before) / 1024) MiB")
        // The daemon answers on.
        #expect(try daemon.client(["status"]).status == 0)
    }
}
