#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// clavisd's messages, one line each on standard error (the journal, under systemd). Never a secret or a value.
public enum DaemonLog {
    /// Writes `message` as one line, unbuffered.
    public static func report(_ message: String) {
        var line = "clavisd: " + message + "\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
