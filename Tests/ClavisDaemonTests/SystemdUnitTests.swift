import ClavisClient
import ClavisTestSupport
import Foundation
import Security
import Testing

/// The units in `systemd/` pass `systemd-analyze verify`, and clavisd serves a socket systemd passes it.
@Suite(.preparedKeychain) struct SystemdUnitTests {
    private var daemon: String {
        URL(fileURLWithPath: ClavisBinary.path).deletingLastPathComponent().appendingPathComponent("clavisd").path
    }

    /// The unit files at `folder`, with ExecStart pointing at the built daemon.
    private func units(_ folder: String, into target: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        var paths: [String] = []
        for name in ["clavisd.service", "clavisd.socket"] {
            let text = try String(contentsOfFile: repositoryRoot + "/" + folder + "/" + name, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/clavisd", with: daemon)
            try text.write(toFile: target + "/" + name, atomically: true, encoding: .utf8)
            paths.append(target + "/" + name)
        }
        return paths
    }

    @Test func theSystemAndUserUnitsVerify() throws {
        let folder = try makeTemporaryFolder("clavis-units")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let system = try runProcess(
            "/usr/bin/systemd-analyze", ["verify", "--man=no"] + (try units("systemd", into: folder + "/system")))
        #expect(system.status == 0, "\(system.standardError)")
        let user = try runProcess(
            "/usr/bin/systemd-analyze",
            ["verify", "--user", "--man=no"] + (try units("systemd/user", into: folder + "/user")),
            environment: ["XDG_RUNTIME_DIR": folder])
        #expect(user.status == 0, "\(user.standardError)")
    }

    @Test func socketActivationServesTheFirstConnection() throws {
        let folder = try makeTemporaryFolder("clavis-activation")
        let socket = folder + "/clavisd.sock"
        let activator = Process()
        activator.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        activator.arguments = [
            "-l", socket, "-E", "XDG_DATA_HOME=\(folder)/data", daemon, "--user", "--registry", folder + "/apps",
        ]
        let log = Pipe()
        activator.standardError = log
        activator.standardOutput = FileHandle.nullDevice
        try activator.run()
        defer {
            // The activator execs clavisd in its own process: stopping it stops the daemon.
            activator.terminate()
            activator.waitUntilExit()
            try? FileManager.default.removeItem(atPath: folder)
        }
        #expect(readUntil("Listening on", on: log).contains("Listening on"))
        // The first connection (from this process, through Security) makes systemd-socket-activate start clavisd.
        let service = TestKeychain.uniqueService()
        ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(daemonSocket: socket)) {
            #expect(addGenericPassword(service: service, account: "me", data: Data("first".utf8)) == errSecSuccess)
            let (status, result) = copyMatching([
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecReturnData as String: true,
            ])
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("first".utf8))
            #expect((try? KeychainClient().status().location) == .daemon(socket: socket))
        }
        #expect(FileManager.default.fileExists(atPath: folder + "/data/clavis/keychain.db"))
    }
}
