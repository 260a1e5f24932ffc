import ClavisCore
import ClavisStore
import Foundation
import Testing

/// A TPM-bound keychain counts its writes in a TPM counter: an older copy of `keychain.db` put back is refused.
@Suite(.serialized)
struct RollbackTests {
    private func item(_ account: String) -> NewItem {
        NewItem(
            itemClass: .genericPassword, attributes: [.account: .string(account)],
            secret: SecureBytes(Array("secret".utf8)))
    }

    @Test func restoredOlderCopyOfTheDatabaseIsRefused() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        do { _ = try Keychain(home: folder.home, deviceKeyOptions: options).add(item("first")).resultOrThrow() }
        let saved = try TemporaryFolder()
        try copyDatabase(from: folder.home, to: saved.path)
        do { _ = try Keychain(home: folder.home, deviceKeyOptions: options).add(item("second")).resultOrThrow() }
        // Opening again without writing counts nothing and is accepted.
        do { _ = try Keychain(home: folder.home, deviceKeyOptions: options) }
        try copyDatabase(from: KeychainHome(path: saved.path), to: folder.home.path)
        let error = #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: options) }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("older copy") == true)
    }

    @Test func currentDatabaseKeepsOpeningAfterManyWrites() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        for round in 0..<3 {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            _ = try keychain.add(item("account \(round)")).resultOrThrow()
            _ = try keychain.delete(ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("none")]))
                .resultOrThrow()
        }
        let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().count == 3)
    }

    /// Copies `keychain.db` and the SQLite files beside it from `home` into `folder`, removing those `home` lacks.
    private func copyDatabase(from home: KeychainHome, to folder: String) throws {
        let manager = FileManager.default
        for name in [KeychainHome.databaseName] + KeychainHome.databaseCompanionNames {
            let target = folder + "/" + name
            try? manager.removeItem(atPath: target)
            if manager.fileExists(atPath: home.path + "/" + name) {
                try manager.copyItem(atPath: home.path + "/" + name, toPath: target)
            }
        }
    }
}
