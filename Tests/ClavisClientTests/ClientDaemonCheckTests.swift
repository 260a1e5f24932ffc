import ClavisTestSupport
import Foundation
import Testing

/// The client checks who listens before it sends anything: a socket whose listener is not root, the clavis system
/// user or the client's own user gets not a byte, and the error names the socket and its owner.
@Suite(.serialized) final class ClientDaemonCheckTests {
    /// Listens at `argv[1]`, says "listening", accepts one connection and prints how many bytes it received.
    private static let relay = #"""
        import os, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(1)
        print("listening", flush=True)
        connection, _ = s.accept()
        connection.settimeout(10)
        received = 0
        try:
            while True:
                chunk = connection.recv(65536)
                if not chunk: break
                received += len(chunk)
        except socket.timeout:
            pass
        print("received", received, flush=True)
        """#

    @Test func aSocketAnotherUserListensOnGetsNothing() throws {
        let user = try SecondUser()
        defer { user.remove() }
        let folder = try makeTemporaryFolder("clavis-relay")
        chmod(folder, 0o777)
        try Self.relay.write(toFile: folder + "/relay.py", atomically: true, encoding: .utf8)
        let socket = folder + "/clavisd.sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/usr/bin/python3", folder + "/relay.py",
            socket,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let said = output.fileHandleForReading
        #expect(String(decoding: said.availableData, as: UTF8.self).contains("listening"))
        let unlock = try ClavisBinary.run(
            ["unlock-keychain", "-p", "relayed-passcode"], home: folder + "/home",
            environment: ["CLAVIS_SOCKET": socket])
        #expect(unlock.status != 0)
        #expect(
            unlock.standardError.contains(
                "refusing to talk to \(socket): its listener runs as user \(user.name) (uid \(user.uid))"),
            "\(unlock.standardError)")
        let rest = String(decoding: said.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(rest.contains("received 0"), "\(rest)")
    }
}
