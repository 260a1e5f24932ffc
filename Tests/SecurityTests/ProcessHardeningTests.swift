import Foundation
import Testing

/// `clavis` keeps what it holds away from other processes of the same user: it is not dumpable, so neither a core
/// file nor `/proc/PID/environ`, `/proc/PID/mem` or a debugger can reach its memory.
@Suite(.serialized, .preparedKeychain) final class ProcessHardeningTests {
    let user: SecondUser
    let home: String

    init() throws {
        user = try SecondUser()
        let folder = try makeTemporaryFolder("clavis-hardening")
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

    @Test func anotherProcessOfTheSameUserCannotReadClavisWhileItWaitsForASecret() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = asUser([ClavisBinary.path, "add-generic-password", "-a", "a", "-s", "s", "-w"])
        process.environment = ClavisBinary.environment(home: home, ["PATH": "/usr/bin:/bin"])
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        // Wait until it blocks reading its standard input (system call 0 on descriptor 0): by then it has started.
        let pid = process.processIdentifier
        for _ in 0..<1000 {  // up to 10 s on a loaded machine
            let call = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? ""
            if call.hasPrefix("0 0x0 ") { break }
            usleep(10_000)
        }
        let peek = try runProcess("/usr/bin/setpriv", asUser(["/bin/cat", "/proc/\(pid)/environ"]))
        #expect(peek.status != 0, "the same user read clavis's environment")
        #expect(peek.standardError.contains("Permission denied"), "\(peek.standardError)")
    }
}
