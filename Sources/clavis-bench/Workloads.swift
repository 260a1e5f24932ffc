import ClavisCore
import ClavisCrypto
import ClavisStore
import Foundation

/// The benchmark's workloads, each on a fresh keychain in a temporary folder.
enum Workloads {
    static func temporaryHome() -> KeychainHome {
        let path = NSTemporaryDirectory() + "clavis-bench-\(UUID().uuidString)"
        return KeychainHome(path: path)
    }

    static func remove(_ home: KeychainHome) {
        try? FileManager.default.removeItem(atPath: home.path)
    }

    static func item(_ index: Int, prefix: String = "acct") -> NewItem {
        NewItem(
            itemClass: .genericPassword,
            attributes: [
                .account: .string("\(prefix)-\(index)"), .service: .string("bench.service"),
                .label: .string("bench item"),
            ],
            secret: SecureBytes(Array("token-\(index)-0123456789abcdef0123456789abcdef".utf8)))
    }

    static func primaryKeyQuery(_ index: Int, prefix: String = "acct") -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword,
            attributes: [.account: .string("\(prefix)-\(index)"), .service: .string("bench.service")], limit: .one,
            returnsSecret: true)
    }

    /// Fills a keychain with `count` items, a thousand per transaction.
    static func populate(_ keychain: Keychain, count: Int) throws {
        var next = 0
        while next < count {
            let end = min(count, next + 1000)
            _ = try keychain.add(contentsOf: (next..<end).map { item($0) })
            next = end
        }
    }

    /// Add, read by primary key, update and delete `operations` times each on a keychain of `size` items.
    static func crud(size: Int, operations: Int) throws -> [Measurement] {
        let home = temporaryHome()
        defer { remove(home) }
        let keychain = try Keychain(home: home)
        try populate(keychain, count: size)
        var add = Measurement(name: "add", storeSize: size)
        for index in 0..<operations {
            try add.time { _ = try keychain.add(item(index, prefix: "new")) }
        }
        var read = Measurement(name: "read (pk)", storeSize: size)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<operations {
            let index = Int.random(in: 0..<size, using: &generator)
            try read.time {
                guard try keychain.find(primaryKeyQuery(index)).count == 1 else { throw BenchError.missing(index) }
            }
        }
        var update = Measurement(name: "update", storeSize: size)
        for index in 0..<operations {
            try update.time {
                _ = try keychain.update(
                    primaryKeyQuery(index, prefix: "new"),
                    with: ItemChanges(secret: SecureBytes(Array("rotated-\(index)".utf8))))
            }
        }
        var delete = Measurement(name: "delete", storeSize: size)
        for index in 0..<operations {
            try delete.time { _ = try keychain.delete(primaryKeyQuery(index, prefix: "new")) }
        }
        return [add, read, update, delete]
    }

    /// Time of a passcode change on a keychain of `size` items (cheap KDF, so the re-wrap itself is measured).
    static func passcodeChange(size: Int, repetitions: Int) throws -> Measurement {
        let home = temporaryHome()
        defer { remove(home) }
        let keychain = try Keychain(home: home)
        try keychain.setPasscode(SecureBytes(Array("0000".utf8)), current: nil, kdf: .cheapForTesting())
        try populate(keychain, count: size)
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
    }
}
