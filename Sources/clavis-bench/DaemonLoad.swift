#if os(Linux)
    import ClavisClient
    import ClavisCore
    import Foundation
    import Security

    /// Many clients at once through one clavisd: each workload (reads only, adds only, the mix) run by one client and
    /// then by eight, each client its own process, on the same daemon in the same minutes, so that the ratio of the
    /// two holds whatever the host does meanwhile.
    ///
    /// Every client connects and makes one call first, then waits on its standard input until all are ready; each
    /// reports when its first and last timed calls started and ended (the machine's monotonic clock), so neither
    /// process start nor exit is timed. The daemon's own count of writes and flushes (`clavis status`) is read before
    /// and after each run.
    enum DaemonLoad {
        /// What each client calls.
        enum Workload: String, CaseIterable {
            /// `SecItemCopyMatching` by primary key, returning data, of random items of the bench keychain.
            case reads
            /// `SecItemAdd` of new items of the client's own.
            case adds
            /// Add, read, update and delete of the client's own items, in turns.
            case mix
        }

        /// One run: how many clients made how many calls, at what rate, and what the daemon flushed meanwhile.
        struct Run {
            let workload: Workload
            let clients: Int
            let calls: Int
            let seconds: Double
            let unexpected: Int
            let writes: Int
            let flushes: Int
            /// Processor time the clients and the daemon spent during the run, in microseconds.
            let clientCPU: Double
            let daemonCPU: Double

            var callsPerSecond: Double { Double(calls) / seconds }

            func row(storeSize: Int, beside single: Run?) -> String {
                var text = String(
                    format: "daemon load: %@, %d client%@ x %d calls at %d items: %.0f calls/s", workload.rawValue,
                    clients, clients == 1 ? "" : "s", calls / clients, storeSize, callsPerSecond)
                if let single, single.clients != clients {
                    text += String(
                        format: " (%.2fx one client's %.0f)", callsPerSecond / single.callsPerSecond,
                        single.callsPerSecond)
                }
                text += String(
                    format: "; CPU per call %.1f µs (clients %.1f, daemon %.1f)",
                    (clientCPU + daemonCPU) / Double(calls),
                    clientCPU / Double(calls), daemonCPU / Double(calls))
                if writes > 0 {
                    text += String(
                        format: "; %d writes in %d flushes, %.0f flushes/s", writes, flushes,
                        Double(flushes) / seconds)
                }
                return text + ", \(unexpected) unexpected"
            }
        }

        /// Every workload through one daemon on `bench`, one client and then `clients`, `calls` calls per client
        /// (a quarter of them for adds, whose every call waits for the disk).
        static func rows(
            _ bench: BenchKeychain, clients: Int, calls: Int, accessGroup: String,
            workloads: [Workload] = Workload.allCases
        ) throws -> [String] {
            let daemon = try DaemonWorkloads.Daemon(bench: bench, accessGroup: accessGroup)
            defer { daemon.stop() }
            var rows: [String] = []
            for workload in workloads {
                let perClient = workload == .adds ? max(1, calls / 4) : calls
                let single = try run(workload, clients: 1, calls: perClient, daemon: daemon, size: bench.size)
                let many = try run(workload, clients: clients, calls: perClient, daemon: daemon, size: bench.size)
                rows.append(single.row(storeSize: bench.size, beside: nil))
                rows.append(many.row(storeSize: bench.size, beside: single))
            }
            return rows
        }

        /// How many runs this process made so far: each run's clients name their items after it.
        nonisolated(unsafe) private static var runs = 0

        private static func run(
            _ workload: Workload, clients: Int, calls: Int, daemon: DaemonWorkloads.Daemon, size: Int
        )
            throws -> Run
        {
            runs += 1
            let before = try statistics(daemon)
            let daemonCPUBefore = daemon.processorMicroseconds
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            var workers: [(process: Process, input: Pipe, output: Pipe)] = []
            for client in 0..<clients {
                let worker = Process()
                worker.executableURL = URL(fileURLWithPath: executable)
                worker.arguments = [
                    "daemon-worker", daemon.socket, workload.rawValue, "r\(runs)c\(client)", String(calls),
                    String(size),
                ]
                let input = Pipe()
                let output = Pipe()
                worker.standardInput = input
                worker.standardOutput = output
                try worker.run()
                workers.append((worker, input, output))
            }
            for worker in workers {
                _ = try readLine(worker.output)
            }
            for worker in workers { worker.input.fileHandleForWriting.write(Data("go\n".utf8)) }
            var unexpected = 0
            var first = UInt64.max
            var last: UInt64 = 0
            var clientCPU = 0.0
            for worker in workers {
                let fields = try readLine(worker.output).split(separator: " ").compactMap { UInt64($0) }
                worker.process.waitUntilExit()
                guard fields.count == 4 else { throw Workloads.BenchError.status("a daemon load client failed", -1) }
                unexpected += Int(fields[0])
                first = min(first, fields[1])
                last = max(last, fields[2])
                clientCPU += Double(fields[3])
            }
            let daemonCPU = daemon.processorMicroseconds - daemonCPUBefore
            let after = try statistics(daemon)
            return Run(
                workload: workload, clients: clients, calls: clients * calls, seconds: Double(last - first) / 1e9,
                unexpected: unexpected, writes: after.writes - before.writes, flushes: after.flushes - before.flushes,
                clientCPU: clientCPU, daemonCPU: daemonCPU)
        }

        /// The daemon's writes and flushes so far, as `clavis status` shows them.
        private static func statistics(_ daemon: DaemonWorkloads.Daemon) throws -> WriteStatistics {
            let configuration = ClavisConfiguration.current.with(daemonSocket: daemon.socket)
            return try KeychainClient(configuration: configuration).status().writes ?? WriteStatistics()
        }

        /// The next line a client printed.
        private static func readLine(_ pipe: Pipe) throws -> String {
            var line = Data()
            while true {
                let byte = try pipe.fileHandleForReading.read(upToCount: 1) ?? Data()
                guard let character = byte.first else {
                    throw Workloads.BenchError.status("a daemon load client ended early", -1)
                }
                if character == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(character)
            }
        }

        /// One client: one untimed call, `ready`, then (once told to go) `calls` calls of `workload`; prints how many
        /// answered something unexpected, when the calls started and ended, and the processor time they took (µs).
        static func worker(socket: String, workload: Workload, prefix: String, calls: Int, size: Int) -> Int32 {
            let configuration = ClavisConfiguration.current.with(daemonSocket: socket)
            var unexpected = 0
            var started: UInt64 = 0
            var processorBefore = 0
            ClavisConfiguration.withConfiguration(configuration) {
                var generator = SystemRandomNumberGenerator()
                if read(Int.random(in: 0..<size, using: &generator)) != errSecSuccess { unexpected += 1 }
                FileHandle.standardOutput.write(Data("ready\n".utf8))
                _ = Swift.readLine()
                started = DispatchTime.now().uptimeNanoseconds
                processorBefore = processorMicroseconds()
                for index in 0..<calls {
                    let status =
                        switch workload {
                        case .reads: read(Int.random(in: 0..<size, using: &generator))
                        case .adds: add(account: "\(prefix)-\(index)")
                        case .mix: mixed(index, prefix: prefix)
                        }
                    if status != errSecSuccess { unexpected += 1 }
                }
            }
            let ended = DispatchTime.now().uptimeNanoseconds
            print(unexpected, started, ended, processorMicroseconds() - processorBefore)
            return unexpected == 0 ? 0 : 1
        }

        /// The processor time this process has taken, user and system, in microseconds.
        private static func processorMicroseconds() -> Int {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec
                + usage.ru_stime.tv_usec
        }

        /// Reads bench item `index` (`Workloads.item`), returning its data.
        private static func read(_ index: Int) -> OSStatus {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench.service",
                kSecAttrAccount as String: "acct-\(index)", kSecReturnData as String: true,
            ]
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            guard status == errSecSuccess else { return status }
            return (result as? Data).map(Array.init) == Workloads.secret(index) ? errSecSuccess : errSecDecode
        }

        private static func add(account: String, service: String = "bench.load") -> OSStatus {
            let attributes: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8),
            ]
            return SecItemAdd(attributes as CFDictionary, nil)
        }

        /// Call `index` of the mix: add, read, update and delete one item of the client's own, in turns.
        private static func mixed(_ index: Int, prefix: String) -> OSStatus {
            let account = "\(prefix)-\(index / 4)"
            let base: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench.concurrent",
                kSecAttrAccount as String: account,
            ]
            switch index % 4 {
            case 0:
                return add(account: account, service: "bench.concurrent")
            case 1:
                var result: CFTypeRef?
                return SecItemCopyMatching(
                    base.merging([kSecReturnData as String: true]) { _, new in new } as CFDictionary, &result)
            case 2:
                return SecItemUpdate(
                    base as CFDictionary, [kSecValueData as String: Data("changed".utf8)] as CFDictionary)
            default:
                return SecItemDelete(base as CFDictionary)
            }
        }
    }
#endif
