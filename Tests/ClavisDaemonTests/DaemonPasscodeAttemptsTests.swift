import ClavisTestSupport
import Foundation
import Testing

/// Wrong passcodes from several clients of one clavisd at once: the daemon alone checks them, and one counter and
/// one backoff serve them all (five free attempts, then a lockout: `PasscodeAttempts`).
@Suite(.serialized) final class DaemonPasscodeAttemptsTests {
    private var daemons: [TestDaemon] = []

    deinit {
        for daemon in daemons { daemon.stop() }
    }

    @Test func sixClientsGuessingAtOnceShareOneCounterAndTheLockoutRefusesEvenTheRightPasscode() throws {
        let daemon = try TestDaemon(mode: "user")
        daemons.append(daemon)
        for step in [
            ["add-generic-password", "-a", "me", "-s", "svc", "-w", "kept"], ["set-keychain-password", "-p", "7391"],
            ["lock-keychain"],
        ] {
            let output = try daemon.client(step)
            #expect(output.status == 0, "\(step): \(output.standardError)")
        }
        let gate = try AskpassGate(folder: daemon.folder, answer: "0000")
        let (unused, socket) = (daemon.folder + "/unused", daemon.socket)
        let guesses = try gate.releasingTogether(6) {
            try ClavisBinary.runTogether(
                6, ["find-generic-password", "-a", "me", "-s", "svc", "-w"], home: unused,
                environment: ["CLAVIS_SOCKET": socket, "CLAVIS_ASKPASS": gate.askpass], onExit: gate.noteExit)
        }
        for guess in guesses {
            #expect(guess.status == 51, "\(guess.standardError)")
            #expect(!guess.standardOutput.contains("kept"))
        }
        // The sixth wrong passcode, whichever client sent it, started the lockout for every client.
        let right = try daemon.client(["unlock-keychain", "-p", "7391"])
        #expect(right.status == 51, "six wrong passcodes lock attempts out")
        #expect(right.standardError.contains("locked out"), "\(right.standardError)")
        let status = try daemon.client(["status"])
        #expect(status.standardOutput.contains("passcode attempts refused for"), "\(status.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: unused), "no client used its own keychain")
    }
}
