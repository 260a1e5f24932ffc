#if os(Linux)
    import ClavisClient
    import ClavisIdentity
    import ClavisStore
    import Foundation
    import Security

    /// The same operations through Apple's API, with the dictionaries an app passes: what a user of `Security`
    /// waits for, environment, dictionary parsing and bridging included.
    ///
    /// Each dictionary is built before its call is timed, as an app holds its query; the call and the result's
    /// bridging are timed.
    enum APIWorkloads {
        /// The access group an item added through `Security` by this process goes to: the first of its entitlements
        /// as the embedded keychain reads them (`CLAVIS_ENTITLEMENTS`, else the executable's name), found without
        /// opening a keychain (asking a keychain service would open, or create, the user's own).
        static var accessGroup: String {
            (try? Entitlements.load(path: ClavisConfiguration.current.entitlementsPath).defaultGroup) ?? ""
        }

        /// `SecItemAdd` and `SecItemCopyMatching` by primary key returning data, `operations` times each (after
        /// `firstReads` reads timed apart) on `bench`'s keychain, embedded, as an app's is when no daemon runs:
        /// whatever daemon listens or `CLAVIS_SOCKET` names is left alone (the daemon rows start their own); the items
        /// added are deleted again.
        static func run(_ bench: BenchKeychain, operations: Int, firstReads: Int = 0) throws -> [Measurement] {
            try ClavisConfiguration.withConfiguration(embedded(bench)) {
                try measure(bench, operations: operations, firstReads: firstReads)
            }
        }

        /// The configuration of `bench`'s keychain, embedded.
        private static func embedded(_ bench: BenchKeychain) -> ClavisConfiguration {
            var configuration = ClavisConfiguration.current.with(home: bench.home.path)
            configuration.looksForDaemon = false
            configuration.daemonSocket = nil
            return configuration
        }

        /// `SecItemCopyMatching` on `small` and on `large` in turns of `turn` reads, `operations` reads each: the two
        /// rows come from the same minutes, so the ratio of their p50s holds whatever the host does meanwhile, where
        /// rows measured minutes apart move with its load. (The first read of each turn also finds the other
        /// keychain's service: one read in `turn`, which no p50 sees.)
        static func alternatingReads(small: BenchKeychain, large: BenchKeychain, operations: Int, turn: Int = 50)
            throws -> [Measurement]
        {
            var reads = [small, large].map {
                Measurement(name: "SecItemCopyMatching (alternating)", storeSize: $0.size)
            }
            var generator = SystemRandomNumberGenerator()
            while reads[1].nanoseconds.count < operations {
                for (which, bench) in [small, large].enumerated() {
                    try ClavisConfiguration.withConfiguration(embedded(bench)) {
                        for _ in 0..<min(turn, operations - reads[which].nanoseconds.count) {
                            try timeRead(bench, into: &reads[which], using: &generator)
                        }
                    }
                }
            }
            return reads
        }

        /// How many reads the `(first reads)` row times before the `SecItemCopyMatching` row. The first reads after a
        /// keychain opens may touch pages its reader has not mapped or cached yet (a million items take 339 MB), so
        /// they are timed apart, and on ten times as many reads as the row after them, which a burst of load on the
        /// host moves less.
        static let firstReads = 20_000

        /// The rows on whatever keychain this task's configuration names, each row's name followed by `suffix`:
        /// `SecItemAdd`, then `firstReads` reads of `SecItemCopyMatching` in a row of their own (none when 0), then
        /// the `SecItemCopyMatching` row.
        static func measure(_ bench: BenchKeychain, operations: Int, suffix: String = "", firstReads: Int = 0) throws
            -> [Measurement]
        {
            var add = Measurement(name: "SecItemAdd" + suffix, storeSize: bench.size)
            for index in 0..<operations {
                let attributes =
                    [
                        kSecClass as String: kSecClassGenericPassword,
                        kSecAttrAccount as String: "api-\(index)",
                        kSecAttrService as String: "bench.service",
                        kSecAttrLabel as String: "bench item",
                        kSecValueData as String: Data(Workloads.secret(index, prefix: "api")),
                    ] as CFDictionary
                var status: OSStatus = 0
                add.time { status = SecItemAdd(attributes, nil) }
                guard status == errSecSuccess else { throw Workloads.BenchError.status("SecItemAdd", status) }
            }
            var generator = SystemRandomNumberGenerator()
            var first = Measurement(name: "SecItemCopyMatching (first reads)" + suffix, storeSize: bench.size)
            for _ in 0..<firstReads { try timeRead(bench, into: &first, using: &generator) }
            var read = Measurement(name: "SecItemCopyMatching" + suffix, storeSize: bench.size)
            for _ in 0..<operations { try timeRead(bench, into: &read, using: &generator) }
            for index in 0..<operations {
                let query =
                    [
                        kSecClass as String: kSecClassGenericPassword,
                        kSecAttrAccount as String: "api-\(index)",
                        kSecAttrService as String: "bench.service",
                    ] as CFDictionary
                let status = SecItemDelete(query)
                guard status == errSecSuccess else { throw Workloads.BenchError.status("SecItemDelete", status) }
            }
            return firstReads > 0 ? [add, first, read] : [add, read]
        }

        /// Times one `SecItemCopyMatching` by primary key returning data, of a random item of `bench`, into `read`.
        private static func timeRead(
            _ bench: BenchKeychain, into read: inout Measurement, using generator: inout SystemRandomNumberGenerator
        ) throws {
            let index = Int.random(in: 0..<bench.size, using: &generator)
            let query =
                [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrAccount as String: "acct-\(index)",
                    kSecAttrService as String: "bench.service",
                    kSecReturnData as String: true,
                    kSecMatchLimit as String: kSecMatchLimitOne,
                ] as CFDictionary
            var result: CFTypeRef?
            var status: OSStatus = 0
            read.time {
                status = SecItemCopyMatching(query, &result)
                _ = result as? Data
            }
            guard status == errSecSuccess, (result as? Data).map(Array.init) == Workloads.secret(index) else {
                throw Workloads.BenchError.status("SecItemCopyMatching", status)
            }
        }
    }
#endif
