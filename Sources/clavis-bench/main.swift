import ClavisCore
import ClavisStore
import Foundation

// clavis-bench: the keychain's speed, measured in a release build (`swift build -c release`, then
// `.build/release/clavis-bench`); `clavis-bench --help` prints what each mode measures (`BenchOptions.usage`).
// The modes it runs itself, with positional arguments:
//   clavis-bench api-calls [--operations N]          (the calls `instructions` counts, run under callgrind)
//   clavis-bench contend-worker HOME PREFIX COUNT   (one process of the multi-process check)
//   clavis-bench cli-worker HOME COUNT CLAVIS        (the command-line comparison, inside its D-Bus session)
//   clavis-bench daemon-worker SOCKET WORKLOAD PREFIX COUNT SIZE   (one client process of the daemon load rows)

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "contend-worker" {
    guard arguments.count == 4, let count = Int(arguments[3]) else {
        FileHandle.standardError.write(Data("usage: clavis-bench contend-worker HOME PREFIX COUNT\n".utf8))
        exit(2)
    }
    exit(ContentionWorker.run(home: KeychainHome(path: arguments[1]), prefix: arguments[2], count: count))
}

#if os(Linux)
    if arguments.first == "cli-worker" {
        guard arguments.count == 4, let count = Int(arguments[2]), count > 0 else {
            FileHandle.standardError.write(Data("usage: clavis-bench cli-worker HOME COUNT CLAVIS\n".utf8))
            exit(2)
        }
        exit(CLIComparison.worker(home: arguments[1], calls: count, clavis: arguments[3]))
    }
    if arguments.first == "daemon-worker" {
        guard arguments.count == 6, let workload = DaemonLoad.Workload(rawValue: arguments[2]),
            let count = Int(arguments[4]), count > 0, let size = Int(arguments[5]), size > 0
        else {
            FileHandle.standardError.write(
                Data("usage: clavis-bench daemon-worker SOCKET reads|adds|mix PREFIX COUNT SIZE\n".utf8))
            exit(2)
        }
        exit(
            DaemonLoad.worker(socket: arguments[1], workload: workload, prefix: arguments[3], calls: count, size: size))
    }
#endif

let options: BenchOptions
do {
    options = try BenchOptions(arguments)
} catch {
    switch error {
    case .help:
        print(BenchOptions.usage)
        exit(0)
    case .invalid(let reason):
        FileHandle.standardError.write(Data("clavis-bench: \(reason) (see clavis-bench --help)\n".utf8))
        exit(2)
    }
}

let operations = options.count("--operations", default: options.mode == "instructions" ? 500 : 1000)
let tpmTCTI =
    options.text("--tpm") ?? ProcessInfo.processInfo.environment["CLAVIS_TPM_TCTI"].flatMap { $0.isEmpty ? nil : $0 }
let tpmOperations = options.count("--tpm-operations", default: 50)
let tpmItems = options.count("--tpm-items", default: 100_000)

/// The TPM rows, or why they were skipped.
func printTPMRows() throws {
    guard let tpmTCTI else {
        print("TPM rows skipped: name a TPM with --tpm TCTI or CLAVIS_TPM_TCTI")
        return
    }
    print("TPM rows (\(tpmTCTI)): opening a keychain (device key unsealed by the TPM, or read from device.key; a")
    print("TPM-bound one also checks its rows against the anti-rollback digest), a write, and a P-256 signature in the")
    print("TPM (connection, storage primary key, load, sign: what each use costs) beside one in software")
    for measurement in try TPMWorkloads.run(tcti: tpmTCTI, operations: tpmOperations, items: tpmItems) {
        print(measurement.row)
    }
}

/// Runs `body`, then exits: 0, or 1 with the error.
func runOnly(_ body: () throws -> Void) -> Never {
    do {
        try body()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("clavis-bench: \(error)\n".utf8))
        exit(1)
    }
}

/// Prints the header and the rows `printRows` prints, then exits: 0, or 1 with the error.
func printOnly(_ printRows: () throws -> Void) -> Never {
    runOnly {
        print(Measurement.header)
        try printRows()
    }
}

if options.mode == "tpm" { printOnly(printTPMRows) }

#if os(Linux)
    /// The SecKey rows and OpenSSL's own figures for the same operations.
    func printKeyRows() throws {
        print("SecKey rows: Apple's API over OpenSSL, ECDSA P-256 with SHA-256 over 32 bytes")
        for measurement in try KeyWorkloads.run(operations: operations) { print(measurement.row) }
        print(KeyWorkloads.openSSLSpeed())
    }

    if options.mode == "keys" { printOnly(printKeyRows) }

    if options.mode == "instructions" {
        runOnly {
            for row in try InstructionCounts.measure(calls: operations) { print(row) }
        }
    }
    if options.mode == "api-calls" { runOnly { try InstructionCounts.runCalls(operations) } }

    /// The Secret Service lookups through clavisd's provider and gnome-keyring's, or why they were skipped.
    func printSecretServiceRows(lookups: Int) throws {
        switch SecretServiceComparison.availability() {
        case .success(let clavisd):
            print("Secret Service lookups, alternating (\(lookups) each, \(lookups) items in each provider):")
            for line in try SecretServiceComparison.measure(clavisd: clavisd, lookups: lookups) { print(line) }
        case .failure(let reason):
            print("Secret Service comparison skipped: \(reason.text)")
        }
    }

    if options.mode == "daemon-load" {
        runOnly {
            let bench = try BenchKeychain(
                size: options.count("--items", default: 100_000), accessGroup: APIWorkloads.accessGroup, keptIn: nil)
            defer { bench.remove() }
            for row in try ParallelReads.rows(bench, reads: 20_000) { print(row) }
            let calls = options.count("--calls", default: 10_000)
            let workloads = try options.text("--workload").map { name in
                guard let workload = DaemonLoad.Workload(rawValue: name) else {
                    throw Workloads.BenchError.status("--workload must be reads, adds or mix", 2)
                }
                return [workload]
            }
            for row in try DaemonLoad.rows(
                bench, clients: 8, calls: calls, accessGroup: APIWorkloads.accessGroup,
                workloads: workloads ?? DaemonLoad.Workload.allCases)
            {
                print(row)
            }
        }
    }

    if options.mode == "sync" {
        runOnly {
            guard let database = options.text("--database") else {
                throw Workloads.BenchError.status("sync needs --database (a libpq connection string)", 2)
            }
            print(Measurement.header)
            for line in try SyncWorkloads.rows(
                database: database, writes: options.count("--writes", default: 200),
                items: options.count("--items", default: 10_000))
            {
                print(line)
            }
        }
    }

    if options.mode == "secret-service" {
        printOnly { try printSecretServiceRows(lookups: options.count("--lookups", default: 500)) }
    }
#endif

let sizes = options.sizes
let keepDirectory = options.text("--keep-dir") ?? NSTemporaryDirectory() + "clavis-bench"
let cliCalls = options.count("--cli-calls", default: 200)
let daemonRows = options.text("--daemon") != "off"

#if os(Linux)
    let accessGroup = APIWorkloads.accessGroup
#else
    let accessGroup = "clavis-bench"
#endif

do {
    print("Clavis keychain benchmark (\(operations) operations each; latencies in microseconds)")
    print("engine rows: Keychain (ClavisStore); Sec* rows: Apple's API (Security), dictionaries built beforehand")
    print(Measurement.header)
    var engineRead: [Int: Double] = [:]
    var apiRead: [Int: Double] = [:]
    var bytesPerItem: [Int: Double] = [:]
    var residentKiB: [Int: (total: Int, mappedFile: Int)] = [:]
    for size in sizes {
        let bench = try BenchKeychain(
            size: size, accessGroup: accessGroup, keptIn: size >= 1_000_000 ? keepDirectory : nil)
        defer { bench.remove() }
        bytesPerItem[size] = bench.bytesPerItem
        for measurement in try Workloads.crud(bench, operations: operations) {
            print(measurement.row)
            if measurement.name == "read (pk)" { engineRead[size] = measurement.percentile(0.5) }
        }
        for row in try ParallelReads.rows(bench, reads: operations * 10) { print(row) }
        print(try DurabilityFloor.measure(in: bench.home.path, storeSize: size, count: operations).row)
        for measurement in try StorageFloor.measure(bench, count: operations) { print(measurement.row) }
        #if os(Linux)
            let apiRows = try APIWorkloads.run(bench, operations: operations, firstReads: APIWorkloads.firstReads)
            for measurement in apiRows {
                print(measurement.row)
                if measurement.name == "SecItemCopyMatching" { apiRead[size] = measurement.percentile(0.5) }
            }
            if daemonRows {
                let (rows, resident) = try DaemonWorkloads.run(bench, operations: operations, accessGroup: accessGroup)
                for measurement in rows { print(measurement.row) }
                residentKiB[size] = resident
                if size == sizes.max() {
                    for row in try DaemonLoad.rows(bench, clients: 8, calls: 10_000, accessGroup: accessGroup) {
                        print(row)
                    }
                }
            }
        #endif
    }
    for size in [10, 10_000] {
        print(try Workloads.passcodeChange(size: size, repetitions: 20).row)
    }
    for size in sizes {
        print(String(format: "keychain.db at %d items: %.0f bytes per item", size, bytesPerItem[size] ?? 0))
        if let resident = residentKiB[size] {
            print(
                "clavisd resident at \(size) items: \(resident.total) KiB, of which \(resident.mappedFile) KiB "
                    + "file-backed (shared libraries)")
        }
    }
    if let small = sizes.min(), let large = sizes.max(), small != large {
        for (name, latency) in [("read (pk)", engineRead), ("SecItemCopyMatching", apiRead)] {
            guard let fast = latency[small], let slow = latency[large] else { continue }
            print(String(format: "%@ p50 at %d items / at %d items: %.2fx", name, large, small, slow / fast))
        }
    }
    #if os(Linux)
        // The million-item target against the small keychain, in turns, when the large one is kept (not rebuilt).
        if let small = sizes.min(), let large = sizes.max(), small != large, large >= 1_000_000 {
            let smallBench = try BenchKeychain(size: small, accessGroup: accessGroup, keptIn: nil)
            defer { smallBench.remove() }
            let largeBench = try BenchKeychain(size: large, accessGroup: accessGroup, keptIn: keepDirectory)
            let reads = try APIWorkloads.alternatingReads(small: smallBench, large: largeBench, operations: operations)
            for measurement in reads { print(measurement.row) }
            print(
                String(
                    format: "SecItemCopyMatching p50 at %d items / at %d items, alternating: %.2fx", large, small,
                    reads[1].percentile(0.5) / reads[0].percentile(0.5)))
        }
    #endif
    print(try ContentionWorker.measure(processes: 2, count: 1000))
    #if os(Linux)
        print(Measurement.header)
        try printKeyRows()
    #endif
    try printTPMRows()
    #if os(Linux)
        if cliCalls > 0 {
            switch CLIComparison.availability() {
            case .success(let clavis):
                print("one command per call, alternating (\(cliCalls) calls each, a keychain of \(cliCalls) items):")
                for line in try CLIComparison.measure(clavis: clavis, calls: cliCalls) { print(line) }
            case .failure(let reason):
                print("command-line comparison skipped: \(reason.text)")
            }
            try printSecretServiceRows(lookups: cliCalls)
        }
    #endif
} catch {
    FileHandle.standardError.write(Data("clavis-bench: \(error)\n".utf8))
    exit(1)
}
