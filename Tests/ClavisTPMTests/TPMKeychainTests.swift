import ClavisCore
import ClavisStore
import ClavisTPM
import ClavisTestSupport
import Foundation
import Testing

/// Keychains whose device key is sealed to a (software) TPM: they open on that TPM only, and only while the PCRs of
/// their policy keep their values.
@Suite(.serialized)
struct TPMKeychainTests {
    private let item = NewItem(
        itemClass: .genericPassword, attributes: [.account: .string("me"), .service: .string("tpm")],
        secret: SecureBytes(Array("hunter2".utf8)))

    @Test func keychainBoundToTheTPMOpensOnItAndKeepsNoDeviceKeyFile() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        do {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            #expect(keychain.deviceKeyBinding == .tpm)
            _ = try keychain.add(item).resultOrThrow()
        }
        #expect(!FileManager.default.fileExists(atPath: folder.home.deviceKeyPath))
        let sealed = try #require(FileManager.default.contents(atPath: folder.home.sealedDeviceKeyPath))
        #expect(try SealedSecret(decoding: Array(sealed)).pcrs.isEmpty)
        // Reopened with the file binding asked for: the folder's own record (device.tpm) wins.
        let reopened = try Keychain(
            home: folder.home, deviceKeyOptions: DeviceKeyOptions(binding: .file, tcti: tpm.tcti))
        #expect(reopened.deviceKeyBinding == .tpm)
        #expect(try reopened.find(query()).resultOrThrow().first?.secret == item.secret)
    }

    @Test func copyOfTheFolderRefusesToOpenOnAnotherTPM() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let folder = try TemporaryFolder()
        do {
            _ = try Keychain(home: folder.home, deviceKeyOptions: DeviceKeyOptions(binding: .tpm, tcti: first.tcti))
                .add(item).resultOrThrow()
        }
        let copy = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: folder.home.path, toPath: copy.home.path)
        let error = #expect(throws: KeychainError.self) {
            try Keychain(home: copy.home, deviceKeyOptions: DeviceKeyOptions(binding: .tpm, tcti: second.tcti))
        }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains(KeychainHome.sealedDeviceKeyName) == true)
        #expect(error?.reason.contains("sealed by another TPM") == true)
        // The copy still opens on the TPM that sealed it.
        let home = copy.home
        let keychain = try Keychain(home: home, deviceKeyOptions: DeviceKeyOptions(binding: .tpm, tcti: first.tcti))
        #expect(try keychain.find(query()).resultOrThrow().count == 1)
    }

    @Test func extendingAPolicyPCRMakesTheKeychainRefuseToOpen() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti, pcrs: [16])
        do { _ = try Keychain(home: folder.home, deviceKeyOptions: options).add(item).resultOrThrow() }
        do {
            #expect(try Keychain(home: folder.home, deviceKeyOptions: options).find(query()).resultOrThrow().count == 1)
        }
        try TPMConnection(tcti: tpm.tcti).extendPCR(16, with: Array(repeating: 0x5A, count: 32))
        let error = #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: options) }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("PCR 16 changed") == true)
    }

    @Test func unreachableTPMIsNamedWhenTheKeychainOpens() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        do { _ = try Keychain(home: folder.home, deviceKeyOptions: DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)) }
        let elsewhere = DeviceKeyOptions(binding: .tpm, tcti: "swtpm:host=127.0.0.1,port=1")
        let error = #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: elsewhere) }
        #expect(error?.code == .notAvailable)
        #expect(error?.reason.contains("cannot reach the TPM at \"swtpm:host=127.0.0.1,port=1\"") == true)
    }

    @Test func withoutATPMTheKeychainKeepsItsDeviceKeyInAFile() throws {
        let folder = try TemporaryFolder()
        let keychain = try Keychain(home: folder.home)
        #expect(keychain.deviceKeyBinding == .file)
        _ = try keychain.add(item).resultOrThrow()
        #expect(FileManager.default.fileExists(atPath: folder.home.deviceKeyPath))
        #expect(!FileManager.default.fileExists(atPath: folder.home.sealedDeviceKeyPath))
    }

    @Test func folderWithBothDeviceKeysIsRefused() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        do { _ = try Keychain(home: folder.home, deviceKeyOptions: DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)) }
        #expect(
            FileManager.default.createFile(
                atPath: folder.home.deviceKeyPath, contents: Data(repeating: 1, count: 32),
                attributes: [.posixPermissions: 0o600]))
        let error = #expect(throws: KeychainError.self) {
            try Keychain(home: folder.home, deviceKeyOptions: DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti))
        }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("both") == true)
    }

    @Test func badDeviceKeySettingsAreNamed() throws {
        let binding = #expect(throws: KeychainError.self) {
            try DeviceKeyOptions(binding: "enclave", tcti: nil, pcrs: nil)
        }
        #expect(binding?.code == .param)
        #expect(binding?.reason.contains("\"enclave\"") == true)
        let pcrs = #expect(throws: KeychainError.self) { try DeviceKeyOptions(binding: "tpm", tcti: nil, pcrs: "0,24") }
        #expect(pcrs?.reason.contains("\"24\"") == true)
        #expect(try DeviceKeyOptions(binding: "tpm", tcti: nil, pcrs: "7,0").pcrs == [0, 7])
        #expect(try DeviceKeyOptions(binding: nil, tcti: nil, pcrs: nil) == .file)
    }

    private func query() -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("me")], returnsSecret: true)
    }
}

/// A fresh folder under /tmp holding a keychain folder (`home`), removed when released.
final class TemporaryFolder {
    let path: String
    let home: KeychainHome

    init() throws {
        path = try makeTemporaryFolder("tpm-keychain")
        home = KeychainHome(path: path + "/home")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
