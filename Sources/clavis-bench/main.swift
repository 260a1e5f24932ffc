import ClavisCore
import ClavisStore
import Foundation

// clavis-bench: the keychain engine's speed, measured in a release build (`swift run -c release clavis-bench`).
//   clavis-bench [--sizes 1000,100000] [--operations 1000]
//   clavis-bench contend-worker HOME PREFIX COUNT   (one process of the multi-process check)

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "contend-worker" {
    guard arguments.count == 4, let count = Int(arguments[3]) else {
        FileHandle.standardError.write(Data("usage: clavis-bench contend-worker HOME PREFIX COUNT\n".utf8))
        exit(2)
    }
    exit(ContentionWorker.run(home: KeychainHome(path: arguments[1]), prefix: arguments[2], count: count))
}

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let sizes = (option("--sizes") ?? "1000,100000").split(separator: ",").compactMap { Int($0) }
let operations = Int(option("--operations") ?? "1000") ?? 1000

do {
    print("Clavis keychain engine benchmark (\(operations) operations each; latencies in microseconds)")
    print(Measurement.header)
    var readLatency: [Int: Double] = [:]
    for size in sizes {
        for measurement in try Workloads.crud(size: size, operations: operations) {
            print(measurement.row)
            if measurement.name == "read (pk)" { readLatency[size] = measurement.percentile(0.5) }
        }
    }
    for size in [10, 10_000] {
        print(try Workloads.passcodeChange(size: size, repetitions: 20).row)
    }
    if let small = sizes.min(), let large = sizes.max(), small != large, let fast = readLatency[small],
        let slow = readLatency[large]
    {
        print(String(format: "read p50 at %d items / at %d items: %.2fx", large, small, slow / fast))
    }
    print(try ContentionWorker.measure(processes: 2, count: 1000))
} catch {
    FileHandle.standardError.write(Data("clavis-bench: \(error)\n".utf8))
    exit(1)
}
