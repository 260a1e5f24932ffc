internal import Foundation

/// Runs helper programs (an askpass program, fprintd's clients) and finds them on `PATH`.
///
/// Arguments never carry a secret: what a helper must return comes back on its standard output.
enum ChildProcess {
    /// What a finished program wrote on standard output and how it ended.
    struct Outcome {
        /// The exit status; a program killed by a signal reports a non-zero status.
        var status: Int32
        /// Everything it wrote on standard output. Callers that receive a secret copy it and zero this.
        var output: Data
    }

    /// Runs `path` with `arguments`, standard error passed through; `nil` when it cannot be started.
    static func run(_ path: String, _ arguments: [String]) -> Outcome? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        // From the root folder: Foundation would otherwise start the helper in this process's folder, which the user
        // may not be allowed into (clavis run from another user's folder), and refuse to start it at all.
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: output)
    }

    /// The path of the executable `name`: `name` itself when it contains a slash, else the first match on `PATH`.
    static func find(_ name: String) -> String? {
        guard !name.isEmpty else { return nil }
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)")
        {
            return "\(folder)/\(name)"
        }
        return nil
    }
}
