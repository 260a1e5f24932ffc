import ClavisCore
import ClavisStore
import Foundation

/// A keychain of `size` benchmark items, filled once: in a fresh temporary folder, or in a folder kept across runs
/// (`--keep-dir`), so a keychain of a million items is built once and measured many times.
struct BenchKeychain {
    let home: KeychainHome
    let size: Int
    /// The access group every benchmark item is in: the one the `Security` calls of this process search.
    let accessGroup: String
    private let isKept: Bool

    /// Opens the kept keychain of `size` items in `keptIn`, or builds one (there, or in a temporary folder).
    init(size: Int, accessGroup: String, keptIn folder: String?) throws {
        self.size = size
        self.accessGroup = accessGroup
        if let folder {
            home = KeychainHome(path: folder + "/items-\(size)")
            isKept = true
            let marker = home.path + "/bench-populated"
            if (try? String(contentsOfFile: marker, encoding: .utf8)) == "\(size) \(accessGroup)\n" { return }
            try? FileManager.default.removeItem(atPath: home.path)
            try Self.populate(home, count: size, accessGroup: accessGroup)
            try "\(size) \(accessGroup)\n".write(toFile: marker, atomically: true, encoding: .utf8)
        } else {
            home = Workloads.temporaryHome()
            isKept = false
            try Self.populate(home, count: size, accessGroup: accessGroup)
        }
    }

    /// Deletes a temporary keychain; a kept one stays for the next run.
    func remove() {
        if !isKept { Workloads.remove(home) }
    }

    /// Bytes of `keychain.db` per item (while no process has the keychain open, so the log is folded back).
    var bytesPerItem: Double {
        let attributes = try? FileManager.default.attributesOfItem(atPath: home.databasePath)
        let bytes = (attributes?[.size] as? NSNumber)?.doubleValue ?? 0
        return bytes / Double(max(1, size))
    }

    /// Fills a new keychain (its device key bound as `deviceKeyOptions` say) with `count` items, a thousand per
    /// transaction, and closes it.
    static func populate(
        _ home: KeychainHome, count: Int, accessGroup: String, deviceKeyOptions: DeviceKeyOptions = DeviceKeyOptions()
    ) throws {
        let keychain = try Keychain(home: home, deviceKeyOptions: deviceKeyOptions)
        var next = 0
        while next < count {
            let end = min(count, next + 1000)
            _ = try keychain.add(contentsOf: (next..<end).map { Workloads.item($0, accessGroup: accessGroup) })
                .resultOrThrow()
            next = end
        }
    }
}
