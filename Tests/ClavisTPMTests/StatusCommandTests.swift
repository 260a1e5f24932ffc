import Foundation
import Testing

/// `clavis status` (the real binary, embedded) says what the keychain's device key is bound to.
@Suite(.serialized)
struct StatusCommandTests {
    @Test func statusSaysTheDeviceKeyIsAFileWithoutATPM() throws {
        let folder = try TemporaryFolder()
        let output = try clavisStatus(home: folder.home.path, [:])
        #expect(output.contains("device key: file"))
    }

    @Test
    func statusSaysTheDeviceKeyIsSealedToTheTPM() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let output = try clavisStatus(
            home: folder.home.path, ["CLAVIS_DEVICE_KEY": "tpm", "CLAVIS_TPM_TCTI": tpm.tcti, "CLAVIS_TPM_PCRS": "16"])
        #expect(output.contains("device key: tpm"))
        // Once created, the keychain stays bound to the TPM whatever a later run asks for.
        let later = try clavisStatus(
            home: folder.home.path, ["CLAVIS_DEVICE_KEY": "file", "CLAVIS_TPM_TCTI": tpm.tcti])
        #expect(later.contains("device key: tpm"))
    }

    @Test
    func daemonCreatesKeychainsBoundToTheTPMItIsGiven() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let socket = folder.path + "/clavisd.sock"
        let registry = folder.path + "/apps.d"
        try FileManager.default.createDirectory(atPath: registry, withIntermediateDirectories: true)
        let daemon = Process()
        daemon.executableURL = PackageBinary.url("clavisd")
        daemon.arguments = [
            "--user", "--socket", socket, "--state", folder.home.path, "--registry", registry, "--device-key", "tpm",
        ]
        daemon.environment = ["CLAVIS_TPM_TCTI": tpm.tcti, "HOME": folder.path, "PATH": "/usr/bin:/bin"]
        let log = Pipe()
        daemon.standardError = log
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        // clavisd says "listening on" once its socket accepts connections.
        var said = ""
        while !said.contains("listening on") {
            let chunk = log.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        #expect(said.contains("listening on"), "clavisd did not start: \(said)")
        let output = try clavisStatus(home: folder.path + "/unused", ["CLAVIS_SOCKET": socket])
        #expect(output.contains("mode: daemon"))
        #expect(output.contains("device key: tpm"))
        #expect(FileManager.default.fileExists(atPath: folder.home.sealedDeviceKeyPath))
        // The daemon's option decides how its keychains are made: create-keychain does not pretend otherwise.
        let create = try PackageBinary.runClavis(
            ["create-keychain", "--device-key", "file"], home: folder.path + "/unused", ["CLAVIS_SOCKET": socket])
        #expect(create.status == 48)
        #expect(create.error.contains("clavisd at \(socket) serves this keychain"))
        #expect(!FileManager.default.fileExists(atPath: folder.home.deviceKeyPath))
    }

    @Test func badDeviceKeySettingFailsWithItsName() throws {
        let folder = try TemporaryFolder()
        let process = try PackageBinary.runClavis(["status"], home: folder.home.path, ["CLAVIS_DEVICE_KEY": "hsm"])
        #expect(process.status != 0)
        #expect(process.error.contains("\"hsm\" is neither tpm nor file"))
    }

    /// The standard output of a successful `clavis status`.
    private func clavisStatus(home: String, _ environment: [String: String]) throws -> String {
        let run = try PackageBinary.runClavis(["status"], home: home, environment)
        #expect(run.status == 0, "clavis status failed: \(run.error)")
        return run.output
    }
}
