import ClavisTestSupport
import Foundation

/// The package's executables, built beside this test bundle, run as a user would run them.
enum PackageBinary {
    /// The executable `name` of this package.
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: ClavisBinary.sibling(name))
    }

    /// Runs `clavis` with `arguments`, embedded on the keychain in `home`, with `environment` in place of the test's
    /// own `CLAVIS_` settings; its exit status and what it wrote.
    static func runClavis(_ arguments: [String], home: String, _ environment: [String: String] = [:]) throws -> (
        status: Int32, output: String, error: String
    ) {
        // Every CLAVIS_ setting of the test process left empty (unset, to clavis) unless `environment` gives it.
        var settings = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("CLAVIS_") }.mapValues { _ in "" }
        settings.merge(environment) { _, given in given }
        settings["XDG_RUNTIME_DIR"] = home
        let run = try runProcess(
            ClavisBinary.path, arguments, environment: ClavisBinary.environment(home: home, settings))
        return (run.status, run.standardOutput, run.standardError)
    }
}
