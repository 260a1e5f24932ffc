import Foundation

/// Latencies of one operation, summarised as throughput and percentiles.
struct Measurement {
    let name: String
    let storeSize: Int
    private(set) var nanoseconds: [UInt64] = []
    private(set) var totalNanoseconds: UInt64 = 0

    init(name: String, storeSize: Int) {
        self.name = name
        self.storeSize = storeSize
    }

    /// Times one call of `body`.
    mutating func time(_ body: () throws -> Void) rethrows {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        nanoseconds.append(elapsed)
        totalNanoseconds += elapsed
    }

    var operationsPerSecond: Double { Double(nanoseconds.count) / (Double(totalNanoseconds) / 1e9) }

    func percentile(_ fraction: Double) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
        return Double(sorted[index]) / 1000
    }

    /// One table row: operation, store size, count, ops/s, p50 and p99 in microseconds.
    var row: String {
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        return pad(name, 22) + pad(String(storeSize), 10) + pad(String(nanoseconds.count), 8)
            + pad(String(format: "%.0f", operationsPerSecond), 12) + pad(String(format: "%.1f", percentile(0.5)), 12)
            + pad(String(format: "%.1f", percentile(0.99)), 12)
    }

    static let header = "             operation     items   count       ops/s     p50(us)     p99(us)"
}
