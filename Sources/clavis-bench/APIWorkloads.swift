#if os(Linux)
    import ClavisClient
    import ClavisStore
    import Foundation
    import Security

    /// The same operations through Apple's API, with the dictionaries an app passes: what a user of `Security`
    /// waits for, environment, dictionary parsing and bridging included.
    ///
    /// Each dictionary is built before its call is timed, as an app holds its query; the call and the result's
    /// bridging are timed.
    enum APIWorkloads {
        /// The access group an item added through `Security` by this process goes to.
        static var accessGroup: String { (try? KeychainClient().status().accessGroups.first) ?? "" }

        /// `SecItemAdd` and `SecItemCopyMatching` by primary key returning data, `operations` times each on
        /// `bench`'s keychain (named by `$CLAVIS_HOME`, as an app's is); the items added are deleted again.
        static func run(_ bench: BenchKeychain, operations: Int) throws -> [Measurement] {
            try ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(home: bench.home.path)) {
                try measure(bench, operations: operations)
            }
        }

        /// The two rows on whatever keychain this task's configuration names, each row's name followed by `suffix`.
        static func measure(_ bench: BenchKeychain, operations: Int, suffix: String = "") throws -> [Measurement] {
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
            var read = Measurement(name: "SecItemCopyMatching" + suffix, storeSize: bench.size)
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<operations {
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
            return [add, read]
        }
    }
#endif
