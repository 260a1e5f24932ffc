import ClavisAuthentication
import ClavisClient
import ClavisCore
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writing to the terminal and reading secrets from it.
enum Console {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        print(text)
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        var line = text + "\n"
        line.withUTF8 { _ = DescriptorOutput.writeAll(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
    }

    /// Reports a failed keychain operation with Apple's message and the reason (never a secret), and returns the
    /// exit status for it.
    static func fail(_ call: String, _ failure: KeychainError) -> Int32 {
        let reason = failure.reason.isEmpty ? "" : " (\(failure.reason))"
        error("clavis: \(call): \(failure.code.message)\(reason)")
        return ExitStatus.forFailure(failure)
    }

    /// Reads a secret: with `prompt` shown and echo off on the terminal when standard input is one, else one line
    /// from standard input. The bytes never pass through a `String`.
    ///
    /// Returns `nil` at end of input or when the user cancels.
    /// With `confirming`, a terminal asks a second time ("retype …") and a different answer gives `nil` after
    /// saying so, as `security` does for a new secret.
    static func readSecret(prompt: String, confirming: Bool = false) -> SecureBytes? {
        if isInteractive, let terminal = TerminalPasscodeReader() {
            guard let first = terminal.readPasscode(prompt: prompt) else { return nil }
            guard confirming else { return first }
            guard let second = terminal.readPasscode(prompt: "retype " + prompt) else { return nil }
            guard first == second else {
                error("clavis: the two entries differ; nothing was changed")
                return nil
            }
            return first
        }
        return readLine(from: STDIN_FILENO, limit: KeychainLimits.secretBytes)
    }

    /// Reads all of standard input, byte for byte (line breaks included), up to `limit` bytes; `nil`, after saying
    /// why, beyond that or when standard input cannot be read.
    static func readAllInput(limit: Int) -> SecureBytes? {
        read(from: STDIN_FILENO, limit: limit, upTo: nil).map { $0 ?? SecureBytes([]) }
    }

    /// Reads one length-prefixed secret from standard input (a 32-bit big-endian length, then the bytes, any byte
    /// part of it); `nil`, after saying why, when there is none, it is longer than `limit` or the input ends inside it.
    static func readFramedSecret(limit: Int) -> SecureBytes? {
        do {
            guard let secret = try SecureBytes.readLengthPrefixed(from: STDIN_FILENO, limit: limit) else {
                Console.error("clavis: standard input holds no length-prefixed secret")
                return nil
            }
            return secret
        } catch {
            report(error)
            return nil
        }
    }

    /// Reads bytes up to a newline (not included) or the end of input; `nil` when there were none at all, or,
    /// after saying why, when the line is longer than `limit` or standard input cannot be read.
    private static func readLine(from descriptor: Int32, limit: Int) -> SecureBytes? {
        read(from: descriptor, limit: limit, upTo: UInt8(ascii: "\n")) ?? nil
    }

    /// Reads a secret from `descriptor`, reporting a failed read or an oversized secret and giving `nil` for them;
    /// `.some(nil)` when the input ended before any byte.
    private static func read(from descriptor: Int32, limit: Int, upTo delimiter: UInt8?) -> SecureBytes?? {
        do {
            return .some(try SecureBytes.read(from: descriptor, limit: limit, upTo: delimiter))
        } catch {
            report(error)
            return nil
        }
    }

    /// Says why standard input gave no secret.
    private static func report(_ error: SecureReadError) {
        switch error {
        case .tooLong(let limit): Console.error("clavis: standard input holds more than \(limit) bytes")
        case .failed(let failure): Console.error("clavis: cannot read standard input: \(failure)")
        }
    }

    /// True when standard input is a terminal.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }
}
