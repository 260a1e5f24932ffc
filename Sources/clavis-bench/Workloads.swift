import ClavisCore
import ClavisCrypto
import ClavisStore
import Foundation

/// The benchmark's engine workloads, below the `Security` API.
enum Workloads {
    static func temporaryHome() -> KeychainHome {
        let path = NSTemporaryDirectory() + "clavis-bench-\(UUID().uuidString)"
        return KeychainHome(path: path)
    }

    static func remove(_ home: KeychainHome) {
        try? FileManager.default.removeItem(atPath: home.path)
    }

    /// The secret of item `index`.
    static func secret(_ index: Int, prefix: String = "acct") -> [UInt8] {
        Array("token-\(prefix)-\(index)-0123456789abcdef0123456789abcdef".utf8)
    }

    static func item(_ index: Int, prefix: String = "acct", accessGroup: String? = nil) -> NewItem {
        var attributes: [AttributeKey: AttributeValue] = [
            .account: .string("\(prefix)-\(index)"), .service: .string("bench.service"), .label: .string("bench item"),
        ]
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        return NewItem(
            itemClass: .genericPassword, attributes: attributes, secret: SecureBytes(secret(index, prefix: prefix)))
    }

    /// A read by primary key returning the secret, searching `accessGroups` as `Security` does (all of the
    /// caller's groups), or every group when `nil`.
    static func primaryKeyQuery(_ index: Int, prefix: String = "acct", accessGroups: [String]? = nil) -> ItemQuery {
        var query = ItemQuery(
            itemClass: .genericPassword,
            attributes: [.account: .string("\(prefix)-\(index)"), .service: .string("bench.service")], limit: .one,
            returnsSecret: true)
        query.accessGroups = accessGroups
        return query
    }

    /// Add, read by primary key, update and delete `operations` times each on `bench`'s keychain; the items added
    /// are deleted again, so the keychain is left as it was.
    static func crud(_ bench: BenchKeychain, operations: Int) throws -> [Measurement] {
        let keychain = try Keychain(home: bench.home)
        let groups = [bench.accessGroup]
        var add = Measurement(name: "add", storeSize: bench.size)
        for index in 0..<operations {
            try add.time {
                _ = try keychain.add(item(index, prefix: "new", accessGroup: bench.accessGroup)).resultOrThrow()
            }
        }
        var read = Measurement(name: "read (pk)", storeSize: bench.size)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<operations {
            let index = Int.random(in: 0..<bench.size, using: &generator)
            let query = primaryKeyQuery(index, accessGroups: groups)
            try read.time {
                guard try keychain.find(query).resultOrThrow().count == 1 else { throw BenchError.missing(index) }
            }
        }
        var update = Measurement(name: "update", storeSize: bench.size)
        for index in 0..<operations {
            let query = primaryKeyQuery(index, prefix: "new", accessGroups: groups)
            try update.time {
                _ = try keychain.update(query, with: ItemChanges(secret: SecureBytes(Array("rotated-\(index)".utf8))))
                    .resultOrThrow()
            }
        }
        var delete = Measurement(name: "delete", storeSize: bench.size)
        for index in 0..<operations {
            let query = primaryKeyQuery(index, prefix: "new", accessGroups: groups)
            try delete.time { _ = try keychain.delete(query).resultOrThrow() }
        }
        return [add, read, update, delete]
    }

    /// Time of a passcode change on a keychain of `size` items (cheap KDF, so the re-wrap itself is measured).
    static func passcodeChange(size: Int, repetitions: Int) throws -> Measurement {
        let home = temporaryHome()
        defer { remove(home) }
        let keychain = try Keychain(home: home)
        try keychain.setPasscode(SecureBytes(Array("0000".utf8)), current: nil, kdf: .cheapForTesting())
        var next = 0
        while next < size {
            let end = min(size, next + 1000)
            _ = try keychain.add(contentsOf: (next..<end).map { item($0) }).resultOrThrow()
            next = end
        }
        var measurement = Measurement(name: "passcode change", storeSize: size)
        for round in 0..<repetitions {
            let current = SecureBytes(Array("\(round)".utf8) + Array("000".utf8))
            let next = SecureBytes(Array("\(round + 1)".utf8) + Array("000".utf8))
            try measurement.time {
                try keychain.setPasscode(next, current: round == 0 ? SecureBytes(Array("0000".utf8)) : current)
            }
        }
        return measurement
    }

    enum BenchError: Error {
        case missing(Int)
        case status(String, Int32)
        /// A step the bench needs could not run.
        case failed(String)
    }
}
