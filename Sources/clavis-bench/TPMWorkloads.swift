import ClavisCore
import ClavisCrypto
import ClavisStore
import ClavisTPM
import Foundation

/// What binding a keychain to a TPM costs: opening a keychain whose device key the TPM unseals against one whose key
/// is a file, a write (which a TPM-bound keychain counts in the TPM's anti-rollback counter), and a P-256 signature
/// made in the TPM (connection, primary key, load and sign, as each use does).
enum TPMWorkloads {
    /// The open and sign rows on the TPM at `tcti`, `operations` of each after a warm-up of a tenth.
    static func run(tcti: String, operations: Int) throws -> [Measurement] {
        let folder = NSTemporaryDirectory() + "clavis-bench-tpm-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var rows: [Measurement] = []
        for binding in [DeviceKeyBinding.file, .tpm] {
            let home = KeychainHome(path: folder + "/" + binding.rawValue)
            let options = DeviceKeyOptions(binding: binding, tcti: tcti)
            _ = try Keychain(home: home, deviceKeyOptions: options)
            for _ in 0..<max(1, operations / 10) { _ = try Keychain(home: home, deviceKeyOptions: options) }
            var open = Measurement(name: "open (\(binding.rawValue) key)", storeSize: 0)
            for _ in 0..<operations { try open.time { _ = try Keychain(home: home, deviceKeyOptions: options) } }
            rows.append(open)
            // A write on a TPM-bound keychain also counts itself in the TPM's anti-rollback counter.
            let keychain = try Keychain(home: home, deviceKeyOptions: options)
            var add = Measurement(name: "add (\(binding.rawValue) key)", storeSize: 0)
            for number in 0..<operations {
                let item = NewItem(
                    itemClass: .genericPassword, attributes: [.account: .string("bench \(number)")],
                    secret: SecureBytes(Array("secret".utf8)))
                try add.time { _ = try keychain.add(item) }
            }
            rows.append(add)
        }
        let key = try TPMConnection(tcti: tcti).createP256Key()
        let digest = DigestAlgorithm.sha256.hash(Array(repeating: 0x42, count: 32))
        for _ in 0..<max(1, operations / 10) { _ = try TPMConnection(tcti: tcti).sign(digest: digest, with: key) }
        var sign = Measurement(name: "TPM P-256 sign", storeSize: 0)
        for _ in 0..<operations { try sign.time { _ = try TPMConnection(tcti: tcti).sign(digest: digest, with: key) } }
        rows.append(sign)
        return rows
    }
}
