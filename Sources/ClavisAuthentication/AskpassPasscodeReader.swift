public import ClavisCore
import ClavisSystem

/// Reads the passcode through an askpass program (the `SSH_ASKPASS`/`SUDO_ASKPASS` convention), named by
/// `CLAVIS_ASKPASS`.
///
/// The program gets the prompt as its only argument and answers with the passcode as the first line of its
/// standard output; a non-zero exit status means the user canceled. The passcode is never in an argument, the
/// environment or a log line. One evaluation asks once: a wrong passcode fails the evaluation (the caller may try
/// again), so a scripted askpass cannot burn through the lockout budget by itself.
public struct AskpassPasscodeReader: PasscodeReader {
    /// The program's path.
    public let program: String

    /// A reader using `program` (a path, or a name searched on `PATH`); `nil` when no such executable exists.
    public init?(program: String) {
        guard let path = ChildProcess.find(program) else { return nil }
        self.program = path
    }

    /// One passcode per evaluation.
    public var attempts: Int { 1 }

    /// Runs the program with `prompt` as its argument; `nil` when it exits non-zero or cannot be started.
    public func readPasscode(prompt: String) -> SecureBytes? {
        guard var outcome = ChildProcess.run(program, [prompt]) else { return nil }
        defer { outcome.output.resetBytes(in: 0..<outcome.output.count) }
        guard outcome.status == 0 else { return nil }
        let line = outcome.output.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        return SecureBytes(line)
    }
}
