#if os(Linux)
    import Foundation
    import Glibc
    import ClavisSystem

    /// What `SecItemCopyMatching` and `SecItemAdd` execute per call, counted by valgrind's callgrind: within about
    /// 0.2% from run to run whatever else the machine is doing, where this VM's µs rows move by half with the host's
    /// load. So a change to the read path can be judged in one run; the time rows stay the targets.
    ///
    /// `clavis-bench instructions` runs this program again under callgrind (`api-calls` below), on a copy stripped of
    /// its debug information (valgrind 3.19 cannot read the toolchain's DWARF 5), collecting only inside the one
    /// function each row names: Apple's signature, so its symbol is fixed. Each count comes from its own run, so that
    /// the other call's instructions never mix in, with Swift's hashing seeded the same every run
    /// (`SWIFT_DETERMINISTIC_HASHING`: otherwise each run's dictionaries probe differently, ±1%); the keys and the
    /// items read are still random.
    enum InstructionCounts {
        /// The size of the keychain the calls run on.
        static let keychainSize = 1000

        /// The public functions counted, with the symbol callgrind collects under.
        static let counted = [
            (
                "SecItemCopyMatching",
                "$s8Security19SecItemCopyMatchingys5Int32V10Foundation12NSDictionaryC_SpyyXlSgGSgtF"
            ),
            ("SecItemAdd", "$s8Security10SecItemAddys5Int32V10Foundation12NSDictionaryC_SpyyXlSgGSgtF"),
        ]

        /// The rows: instructions per call of each counted function, `calls` calls each; one line saying why when
        /// valgrind or objcopy is not installed.
        static func measure(calls: Int) throws -> [String] {
            guard let valgrind = ChildProcess.find("valgrind"), let objcopy = ChildProcess.find("objcopy") else {
                let missing = ["valgrind", "objcopy"].filter { ChildProcess.find($0) == nil }
                return ["instruction counts skipped: " + missing.joined(separator: " and ") + " not installed"]
            }
            precondition(calls > 0, "the command line asks for one call at least")
            // A folder of its own (mkdtemp): the stripped copy must not be one another user could swap.
            var template = Array((NSTemporaryDirectory() + "clavis-bench-instructions-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else {
                throw Workloads.BenchError.failed("cannot make a temporary folder")
            }
            let folder = String(cString: made)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let stripped = folder + "/clavis-bench"
            // This program's own file: `/proc/self/exe` in objcopy would name objcopy.
            let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let copied = ChildProcess.runToEnd(objcopy, ["--strip-debug", program, stripped], discardingErrors: true)
            guard copied.status == 0 else {
                throw Workloads.BenchError.failed("objcopy could not copy this program")
            }
            setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)  // for the runs below, which inherit the environment
            var rows = [
                "instructions per call (callgrind: repeatable whatever the host is doing), \(calls) calls each on "
                    + "\(keychainSize) items:"
            ]
            for (name, symbol) in counted {
                let log = folder + "/\(name).log"
                let run = ChildProcess.runToEnd(
                    valgrind,
                    [
                        "--tool=callgrind", "--callgrind-out-file=/dev/null", "--log-file=" + log,
                        "--toggle-collect=" + symbol, stripped, "api-calls", "--operations", "\(calls)",
                    ], discardingErrors: true)
                let report = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                guard run.status == 0, let collected = collectedInstructions(in: report) else {
                    throw Workloads.BenchError.failed("callgrind did not count \(name) (status \(run.status))")
                }
                rows.append(
                    name.padding(toLength: 22, withPad: " ", startingAt: 0)
                        + String(format: "%10.0f", Double(collected) / Double(calls)))
            }
            return rows
        }

        /// The calls counted, in the child callgrind runs: `calls` `SecItemAdd` and `SecItemCopyMatching` calls on a
        /// new keychain of `keychainSize` items, as the time rows make them (without the first reads' row, so that each
        /// call counted is one the count is divided by).
        static func runCalls(_ calls: Int) throws {
            let bench = try BenchKeychain(
                size: keychainSize, accessGroup: APIWorkloads.accessGroup, keptIn: nil)
            defer { bench.remove() }
            _ = try APIWorkloads.run(bench, operations: calls)
        }

        /// The number in callgrind's `Collected : N` line.
        private static func collectedInstructions(in report: String) -> Int? {
            for line in report.split(separator: "\n") {
                guard let range = line.range(of: "Collected : ") else { continue }
                return Int(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
            }
            return nil
        }
    }
#endif
