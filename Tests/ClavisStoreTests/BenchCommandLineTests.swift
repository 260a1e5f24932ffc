import Foundation
import Testing

/// `clavis-bench` checks its command line before it measures anything: `--help` prints the usage, and a mistake is
/// one line on standard error with exit status 2, never a default taken silently (a benchmark of minutes).
@Suite struct BenchCommandLineTests {
    /// Runs the `clavis-bench` built beside this test bundle with `arguments`.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("clavis-bench")
        process.arguments = arguments
        // No TPM named: its rows are skipped, whatever the environment of the tests names.
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "CLAVIS_TPM_TCTI" }
        let (output, error) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complained = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: printed, as: UTF8.self),
            String(decoding: complained, as: UTF8.self)
        )
    }

    @Test(arguments: [["--help"], ["-h"], ["keys", "--help"]])
    func helpPrintsTheUsage(_ arguments: [String]) throws {
        let (status, output, error) = try run(arguments)
        #expect(status == 0)
        #expect(output.hasPrefix("usage: clavis-bench"))
        #expect(output.contains("clavis-bench instructions"))
        #expect(error.isEmpty)
    }

    /// Modes the benchmark's own parts run with their options: each is accepted and measures (a TPM's rows are
    /// skipped without one, quickly).
    @Test(arguments: [["api-calls", "--operations", "1"], ["tpm", "--tpm-operations", "1", "--tpm-items", "0"]])
    func theModesItsPartsRunAreAccepted(_ arguments: [String]) throws {
        let (status, _, error) = try run(arguments)
        #expect(status == 0, "\(error)")
    }

    @Test(arguments: [
        (["--bogus"], "'--bogus' is not an option of clavis-bench"),
        (["--operations"], "--operations needs a value"),
        (["--operations", "0"], "'0' is not a value of --operations"),
        (["--operations", "many"], "'many' is not a value of --operations"),
        (["--sizes", "1000,,100"], "'1000,,100' is not a value of --sizes"),
        (["--daemon", "maybe"], "'maybe' is not a value of --daemon"),
        (["keys", "--sizes", "10"], "'--sizes' is not an option of clavis-bench keys"),
        (["frobnicate"], "unknown mode 'frobnicate'"),
        (["--operations", "5", "--operations", "6"], "--operations is given twice"),
        (["--keep-dir", "--sizes", "10"], "--keep-dir needs a value"),
        (["--keep-dir", "-h"], "--keep-dir needs a value"),
    ])
    func aMistakeIsOneLineAndStatusTwo(_ arguments: [String], _ complaint: String) throws {
        let (status, output, error) = try run(arguments)
        #expect(status == 2)
        #expect(output.isEmpty)
        #expect(error == "clavis-bench: \(complaint) (see clavis-bench --help)\n")
    }
}
