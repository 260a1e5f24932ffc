import Foundation

/// The built `clavis` binary, run as a user would run it, for the test suites beyond `ClavisCommandTests`.
public enum ClavisBinary {
    /// `clavis`, built next to this test bundle by `swift build`.
    public static let path: String = {
        let bundle =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("clavis").path
    }()

    /// The package's executable `name` (`clavisd`, `clavis-fuzz`, …), built beside `clavis`.
    public static func sibling(_ name: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// The environment of a run on `home`: no entitlements file (group `clavis`), no askpass program, no scripted
    /// sensor and no daemon unless `environment` names them.
    public static func environment(home: String, _ environment: [String: String] = [:]) -> [String: String] {
        var merged = environment
        merged["CLAVIS_HOME"] = home
        for name in ["CLAVIS_ENTITLEMENTS", "CLAVIS_ASKPASS", "CLAVIS_BIOMETRY_SCRIPT", "CLAVIS_SOCKET"]
        where merged[name] == nil {
            merged[name] = ""
        }
        return merged
    }

    /// Runs `clavis` on the keychain in `home` to completion.
    public static func run(
        _ arguments: [String], home: String, input: String? = nil, environment: [String: String] = [:]
    ) throws -> ProcessOutput {
        try runProcess(path, arguments, environment: self.environment(home: home, environment), input: input)
    }

    /// Starts `count` runs of `clavis` at once and returns their outputs once all have exited; `onExit` is called
    /// as each one ends.
    public static func runTogether(
        _ count: Int, _ arguments: [String], home: String, environment: [String: String] = [:],
        onExit: (@Sendable () -> Void)? = nil
    ) throws -> [ProcessOutput] {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "CLAVIS_COMPAT")
        merged.merge(self.environment(home: home, environment)) { _, new in new }
        var running: [(Process, Pipe, Pipe)] = []
        for _ in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.environment = merged
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            if let onExit { process.terminationHandler = { _ in onExit() } }
            try process.run()
            running.append((process, output, errors))
        }
        // Each run writes a few lines at most, far below a pipe's capacity: wait, then read.
        return running.map { process, output, errors in
            process.waitUntilExit()
            return ProcessOutput(
                status: process.terminationStatus,
                standardOutput: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                standardError: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    /// Writes an executable askpass program `askpass` in `folder` with `script` as its text, and returns its path.
    public static func writeAskpass(in folder: String, _ script: String) throws -> String {
        let askpass = folder + "/askpass"
        try script.write(toFile: askpass, atomically: true, encoding: .utf8)
        chmod(askpass, 0o755)
        return askpass
    }
}
