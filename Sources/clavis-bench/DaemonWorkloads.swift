#if os(Linux)
    import ClavisClient
    import ClavisCore
    import Foundation
    import Security

    /// The same `Security` calls through clavisd (user mode, on the bench keychain, this executable registered with
    /// the bench's group), the daemon's memory, and concurrent clients, each its own process.
    enum DaemonWorkloads {
        /// A clavisd serving `bench`'s keychain, stopped by `stop()`.
        final class Daemon {
            let folder: String
            let socket: String
            let process = Process()

            /// A daemon on `bench`'s keychain with this executable registered as `accessGroup`.
            convenience init(bench: BenchKeychain, accessGroup: String) throws {
                let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
                try self.init(home: bench.home.path, registering: executable, as: accessGroup)
            }

            /// A daemon (the `clavisd` beside this executable) on the keychain in `home`, with `app` registered
            /// under the application identifier (and so the default group) `identifier`; `instance` tells apart the
            /// folders of daemons running at once.
            init(home: String, registering app: String, as identifier: String, instance: String = "") throws {
                folder = NSTemporaryDirectory() + "clavis-bench-daemon-\(getpid())\(instance)"
                try? FileManager.default.removeItem(atPath: folder)
                try FileManager.default.createDirectory(atPath: folder + "/apps", withIntermediateDirectories: true)
                socket = folder + "/clavisd.sock"
                let registration: [String: Any] = ["executable": app, "application-identifier": identifier]
                try JSONSerialization.data(withJSONObject: registration).write(
                    to: URL(fileURLWithPath: folder + "/apps/bench.json"))
                let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
                process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent()
                    .appendingPathComponent("clavisd")
                process.arguments = ["--user", "--socket", socket, "--state", home, "--registry", folder + "/apps"]
                let log = Pipe()
                process.standardError = log
                try process.run()
                var said = Data()
                while !String(decoding: said, as: UTF8.self).contains("listening on") {
                    let chunk = log.fileHandleForReading.availableData
                    guard !chunk.isEmpty else { throw Workloads.BenchError.status("clavisd did not start", -1) }
                    said += chunk
                }
                // What it says later (its sync rounds, among others) is read and dropped, so that it never waits on
                // a full pipe.
                log.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
            }

            /// The daemon's resident memory, in KiB: all of it (`VmRSS`), and the file-backed part (`RssFile`: the
            /// shared libraries' pages, shared with every Swift process, which the kernel may drop).
            var residentKiB: (total: Int, mappedFile: Int) {
                let status =
                    (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
                func field(_ name: String) -> Int {
                    let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
                    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
                }
                return (field("VmRSS"), field("RssFile"))
            }

            /// The processor time the daemon has taken, user and system, in microseconds (`/proc/PID/stat`).
            var processorMicroseconds: Double {
                let stat =
                    (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
                // After the command's name, in parentheses: field 3 on; utime and stime are fields 14 and 15.
                let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
                guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
                    return 0
                }
                return (user + system) * 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
            }

            func stop() {
                process.terminate()
                process.waitUntilExit()
                try? FileManager.default.removeItem(atPath: folder)
            }
        }

        /// `SecItemAdd` and `SecItemCopyMatching` through the daemon, the round trip of its cheapest call beside
        /// them, and its resident memory after them.
        static func run(_ bench: BenchKeychain, operations: Int, accessGroup: String) throws -> (
            [Measurement], residentKiB: (total: Int, mappedFile: Int)
        ) {
            let daemon = try Daemon(bench: bench, accessGroup: accessGroup)
            defer { daemon.stop() }
            let configuration = ClavisConfiguration.current.with(daemonSocket: daemon.socket)
            var rows = try ClavisConfiguration.withConfiguration(configuration) {
                try APIWorkloads.measure(
                    bench, operations: operations, suffix: " (daemon)", firstReads: APIWorkloads.firstReads)
            }
            rows.append(try roundTrip(configuration, storeSize: bench.size, operations: operations))
            return (rows, daemon.residentKiB)
        }

        /// `status` through the daemon: a request, the daemon's identity check and access-log line, one small read
        /// of the keychain's settings, and the answer. What any call through the daemon costs before its own work.
        private static func roundTrip(_ configuration: ClavisConfiguration, storeSize: Int, operations: Int) throws
            -> Measurement
        {
            let client = try KeychainClient(configuration: configuration)
            var roundTrip = Measurement(name: "status (daemon)", storeSize: storeSize)
            for _ in 0..<operations {
                try roundTrip.time { _ = try client.status() }
            }
            return roundTrip
        }
    }
#endif
