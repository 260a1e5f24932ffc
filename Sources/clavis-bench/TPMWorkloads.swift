import ClavisCore
import ClavisCrypto
import ClavisStore
import ClavisTPM
import Foundation

/// What binding a keychain to a TPM costs: opening a keychain whose device key the TPM unseals against one whose key
/// is a file, empty and holding `items` items (a TPM-bound keychain's open also checks its rows against the
/// anti-rollback digest, a scan of every row), a write (which a TPM-bound keychain counts in the TPM's anti-rollback
/// counter), and a P-256 signature made in the TPM (connection, primary key, load and sign, as each use does) beside
/// one made in software.
enum TPMWorkloads {
    /// The open, add and sign rows on the TPM at `tcti`, `operations` of each after a warm-up of a tenth; the opens of
    /// a keychain of `items` items are timed `max(3, operations / 10)` times.
    static func run(tcti: String, operations: Int, items: Int) throws -> [Measurement] {
        let folder = NSTemporaryDirectory() + "clavis-bench-tpm-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var rows: [Measurement] = []
        for binding in [DeviceKeyBinding.file, .tpm] {
            let home = KeychainHome(path: folder + "/" + binding.rawValue)
            let options = DeviceKeyOptions(binding: binding, tcti: tcti)
            _ = try Keychain(home: home, deviceKeyOptions: options)
            rows.append(try timeOpens(of: home, options: options, storeSize: 0, operations: operations))
            // A write on a TPM-bound keychain also counts itself in the TPM's anti-rollback counter.
            let keychain = try Keychain(home: home, deviceKeyOptions: options)
            var add = Measurement(name: "add (\(binding.rawValue) key)", storeSize: 0)
            for number in 0..<operations {
                let item = NewItem(
                    itemClass: .genericPassword, attributes: [.account: .string("bench \(number)")],
                    secret: SecureBytes(Array("secret".utf8)))
                try add.time { _ = try keychain.add(item).resultOrThrow() }
            }
            rows.append(add)
            if items > 0 {
                let filled = KeychainHome(path: folder + "/" + binding.rawValue + "-filled")
                try BenchKeychain.populate(filled, count: items, accessGroup: "bench", deviceKeyOptions: options)
                rows.append(
                    try timeOpens(of: filled, options: options, storeSize: items, operations: max(3, operations / 10)))
            }
        }
        let key = try TPMConnection(tcti: tcti).createP256Key()
        let digest = DigestAlgorithm.sha256.hash(Array(repeating: 0x42, count: 32))
        for _ in 0..<max(1, operations / 10) { _ = try TPMConnection(tcti: tcti).sign(digest: digest, with: key) }
        var sign = Measurement(name: "TPM P-256 sign", storeSize: 0)
        for _ in 0..<operations { try sign.time { _ = try TPMConnection(tcti: tcti).sign(digest: digest, with: key) } }
        rows.append(sign)
        let softwareKey = try AsymmetricKey.generate(curve: .p256)
        var softwareSign = Measurement(name: "software P-256 sign", storeSize: 0)
        for _ in 0..<max(1, operations / 10) {
            _ = try softwareKey.sign(digest: digest, algorithm: nil, padding: .ecdsa)
        }
        for _ in 0..<operations {
            try softwareSign.time { _ = try softwareKey.sign(digest: digest, algorithm: nil, padding: .ecdsa) }
        }
        rows.append(softwareSign)
        return rows
    }

    /// Times `operations` opens of the keychain in `home`, after a warm-up of a tenth.
    private static func timeOpens(of home: KeychainHome, options: DeviceKeyOptions, storeSize: Int, operations: Int)
        throws -> Measurement
    {
        for _ in 0..<max(1, operations / 10) { _ = try Keychain(home: home, deviceKeyOptions: options) }
        var open = Measurement(name: "open (\(options.binding.rawValue) key)", storeSize: storeSize)
        for _ in 0..<operations { try open.time { _ = try Keychain(home: home, deviceKeyOptions: options) } }
        return open
    }
}
