import Foundation

/// The package's executables, built beside this test bundle, run as a user would run them.
enum PackageBinary {
    /// The executable `name` of this package.
    static func url(_ name: String) -> URL {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs `clavis` with `arguments`, embedded on the keychain in `home`, with `environment` in place of the test's
    /// own `CLAVIS_` settings; its exit status and what it wrote.
    static func runClavis(_ arguments: [String], home: String, _ environment: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        let process = Process()
        process.executableURL = url("clavis")
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CLAVIS_") }
        merged.merge(environment) { _, new in new }
        merged["CLAVIS_HOME"] = home
        merged["XDG_RUNTIME_DIR"] = home
        process.environment = merged
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputBytes = output.fileHandleForReading.readDataToEndOfFile()
        let errorBytes = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outputBytes, as: UTF8.self),
            String(decoding: errorBytes, as: UTF8.self)
        )
    }
}
