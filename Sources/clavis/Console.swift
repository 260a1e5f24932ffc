import Security

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
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Reports a failed keychain call in `security`'s shape and returns the exit status for it.
    static func fail(_ call: String, _ status: OSStatus) -> Int32 {
        let message = SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)"
        error("clavis: \(call): \(message)")
        return ExitStatus.forStatus(status)
    }

    /// Reads a secret: with `prompt` shown and echo off on a terminal, else one line from standard input.
    ///
    /// Returns `nil` at end of input.
    static func readSecret(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden)
        }
        defer {
            if canHide { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }

    /// True when standard input is a terminal.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }
}
