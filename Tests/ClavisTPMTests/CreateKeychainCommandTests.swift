import ClavisCore
import ClavisTPM
import Foundation
import Testing

/// `clavis create-keychain --device-key tpm|file`, the real binary against a real swtpm: the binding asked for is
/// what `clavis status` reports, the keychain works, and a TPM-bound one opens only on its TPM with its PCRs.
@Suite(.serialized)
struct CreateKeychainCommandTests {
    @Test func keychainCreatedWithTheTPMIsReportedAndOpensOnlyOnThatTPM() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let home = folder.home.path
        let onFirst = ["CLAVIS_TPM_TCTI": first.tcti]
        let created = try PackageBinary.runClavis(["create-keychain", "--device-key", "tpm"], home: home, onFirst)
        #expect(created.status == 0, "create-keychain failed: \(created.error)")
        #expect(created.output.contains("device key: tpm"))
        #expect(FileManager.default.fileExists(atPath: folder.home.sealedDeviceKeyPath))
        #expect(!FileManager.default.fileExists(atPath: folder.home.deviceKeyPath))
        // The environment no longer decides: the folder records the binding.
        let status = try PackageBinary.runClavis(
            ["status"], home: home, onFirst.merging(["CLAVIS_DEVICE_KEY": "file"]) { $1 })
        #expect(status.output.contains("device key: tpm"))
        let add = try PackageBinary.runClavis(
            ["add-generic-password", "-a", "alice", "-s", "mail", "-w", "tpm-bound secret"], home: home, onFirst)
        #expect(add.status == 0, "add failed: \(add.error)")
        let find = try PackageBinary.runClavis(
            ["find-generic-password", "-a", "alice", "-s", "mail", "-w"], home: home, onFirst)
        #expect(find.output == "tpm-bound secret\n")
        // A second create finds the keychain there: errSecDuplicateKeychain, exit 48 (its low byte).
        let again = try PackageBinary.runClavis(["create-keychain", "--device-key", "file"], home: home, onFirst)
        #expect(again.status == 48)
        #expect(again.error.contains("already exists"))
        // The folder copied beside another TPM does not open, and the error names the cause.
        let copy = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: home, toPath: copy.home.path)
        let elsewhere = try PackageBinary.runClavis(
            ["find-generic-password", "-a", "alice", "-s", "mail", "-w"], home: copy.home.path,
            ["CLAVIS_TPM_TCTI": second.tcti])
        #expect(elsewhere.status != 0)
        #expect(elsewhere.error.contains("sealed by another TPM"))
        #expect(!elsewhere.output.contains("tpm-bound secret"))
    }

    @Test func keychainCreatedWithAPCRPolicyRefusesOnceThePCRChanges() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let environment = ["CLAVIS_TPM_TCTI": tpm.tcti]
        let created = try PackageBinary.runClavis(
            ["create-keychain", "--device-key", "tpm", "--tpm-pcrs", "16"], home: folder.home.path, environment)
        #expect(created.status == 0, "create-keychain failed: \(created.error)")
        #expect(try PackageBinary.runClavis(["status"], home: folder.home.path, environment).status == 0)
        try TPMConnection(tcti: tpm.tcti).extendPCR(16, with: Array(repeating: 0x5A, count: 32))
        let refused = try PackageBinary.runClavis(["status"], home: folder.home.path, environment)
        #expect(refused.status != 0)
        #expect(refused.error.contains("PCR 16 changed"))
    }

    @Test func keychainCreatedWithAFileKeyNeedsNoTPM() throws {
        let folder = try TemporaryFolder()
        let created = try PackageBinary.runClavis(
            ["--json", "create-keychain", "--device-key", "file"], home: folder.home.path,
            ["CLAVIS_TPM_TCTI": "swtpm:host=127.0.0.1,port=1"])
        #expect(created.status == 0, "create-keychain failed: \(created.error)")
        #expect(created.output.contains("\"deviceKey\" : \"file\""))
        #expect(FileManager.default.fileExists(atPath: folder.home.deviceKeyPath))
        let status = try PackageBinary.runClavis(["status"], home: folder.home.path)
        #expect(status.output.contains("device key: file"))
    }

    @Test func unknownBindingIsAUsageError() throws {
        let folder = try TemporaryFolder()
        let run = try PackageBinary.runClavis(["create-keychain", "--device-key", "hsm"], home: folder.home.path)
        #expect(run.status == 2)
        #expect(run.error.contains("\"hsm\" is neither tpm nor file"))
        #expect(!FileManager.default.fileExists(atPath: folder.home.path))
    }
}
