import ClavisTestSupport
import Foundation
import Testing

/// `clavis` keeps what it holds away from other processes of the same user: it is not dumpable, so neither a core
/// file nor `/proc/PID/environ`, `/proc/PID/mem` or a debugger can reach its memory.
@Suite(.serialized, .preparedKeychain) final class ProcessHardeningTests {
    let user: SecondUser
    let folder: String
    let home: String

    init() throws {
        user = try SecondUser()
        folder = try makeTemporaryFolder("clavis-hardening")
        chmod(folder, 0o755)
        home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        chown(home, user.uid, user.gid)
        chmod(home, 0o700)
    }

    deinit { user.remove() }

    /// `arguments` run as the second user (setpriv executes in place, so the process is the program itself).
    private func asUser(_ arguments: [String]) -> [String] {
        ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--"] + arguments
    }

    /// Runs `clavis` as the second user to completion.
    private func clavis(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ProcessOutput {
        try runProcess(
            "/usr/bin/setpriv", asUser([ClavisBinary.path] + arguments),
            environment: ClavisBinary.environment(home: home, environment))
    }

    @Test func anotherProcessOfTheSameUserCannotReadClavisWhileItWaitsForASecret() throws {
        #expect(try clavis(["add-generic-password", "-a", "a", "-s", "s", "-w", "kept"]).status == 0)
        #expect(try clavis(["set-keychain-password", "-p", "7391"]).status == 0)
        // A fresh run must unlock first: it asks the askpass program, which holds it until the peek is done.
        let gate = try AskpassGate(folder: folder, answer: "7391")
        gate.allow(uid: user.uid, gid: user.gid)
        let arguments = asUser([ClavisBinary.path, "find-generic-password", "-a", "a", "-s", "s", "-w"])
        let environment = ClavisBinary.environment(
            home: home, ["PATH": "/usr/bin:/bin", "CLAVIS_ASKPASS": gate.askpass])
        nonisolated(unsafe) var pid: Int32 = 0
        let pidKnown = DispatchSemaphore(value: 0)
        let found = try gate.releasingTogether(1) {
            pidKnown.wait()
            let peek = try runProcess("/usr/bin/setpriv", self.asUser(["/bin/cat", "/proc/\(pid)/environ"]))
            #expect(peek.status != 0, "the same user read clavis's environment")
            #expect(peek.standardError.contains("Permission denied"), "\(peek.standardError)")
        } _: {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = arguments
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            process.terminationHandler = { _ in gate.noteExit() }
            try process.run()
            pid = process.processIdentifier
            pidKnown.signal()
            process.waitUntilExit()
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(found == "kept\n", "the run went on once released")
    }

    /// The askpass program starts from the root folder, so clavis asks even when run from a folder its user may not
    /// enter (Foundation refused to start the program there).
    @Test func theAskpassProgramStartsWhereverClavisWasRunFrom() throws {
        #expect(try clavis(["add-generic-password", "-a", "a", "-s", "s", "-w", "kept"]).status == 0)
        #expect(try clavis(["set-keychain-password", "-p", "7391"]).status == 0)
        let askpass = try ClavisBinary.writeAskpass(in: folder, "#!/bin/sh\necho 7391\n")
        let closed = folder + "/closed"
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false)
        chmod(closed, 0o700)
        let found = try runProcess(
            "/usr/bin/setpriv", asUser([ClavisBinary.path, "find-generic-password", "-a", "a", "-s", "s", "-w"]),
            environment: ClavisBinary.environment(home: home, ["PATH": "/usr/bin:/bin", "CLAVIS_ASKPASS": askpass]),
            currentDirectory: closed)
        #expect(found.status == 0, "\(found.standardError)")
        #expect(found.standardOutput == "kept\n")
    }
}
