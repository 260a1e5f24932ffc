import ClavisCore
import ClavisTPM
import Testing

@Suite(.serialized)
struct SealingTests {
    let secret = SecureBytes((0..<32).map { UInt8($0 * 7 & 0xFF) })

    @Test func sealedSecretUnsealsOnTheSameTPM() throws {
        let tpm = try SoftwareTPM()
        let sealed = try TPMConnection(tcti: tpm.tcti).seal(secret, pcrs: [])
        let encoded = sealed.encoded
        #expect(!encoded.containsBytes(secret.unprotectedBytes()))
        let unsealed = try TPMConnection(tcti: tpm.tcti).unseal(SealedSecret(decoding: encoded))
        #expect(unsealed == secret)
    }

    @Test func anotherTPMRefusesToUnsealNamingTheCause() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let sealed = try TPMConnection(tcti: first.tcti).seal(secret, pcrs: [])
        let error = #expect(throws: KeychainError.self) { try TPMConnection(tcti: second.tcti).unseal(sealed) }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("sealed by another TPM") == true)
    }

    @Test func extendingAPolicyPCRMakesTheTPMRefuse() throws {
        let tpm = try SoftwareTPM()
        let connection = try TPMConnection(tcti: tpm.tcti)
        let sealed = try connection.seal(secret, pcrs: [7, 16])
        #expect(sealed.pcrs == [7, 16])
        #expect(try connection.unseal(sealed) == secret)
        try connection.extendPCR(16, with: [UInt8](repeating: 0xA5, count: 32))
        let error = #expect(throws: KeychainError.self) { try connection.unseal(sealed) }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("PCR 7,16 changed") == true)
    }

    @Test func unreachableTPMIsNotAvailable() throws {
        let error = #expect(throws: KeychainError.self) {
            try TPMConnection(tcti: "swtpm:host=127.0.0.1,port=1")
        }
        #expect(error?.code == .notAvailable)
        #expect(error?.reason.contains("cannot reach the TPM") == true)
    }

    @Test func malformedSealedBytesAreRefused() throws {
        #expect(throws: KeychainError.self) { try SealedSecret(decoding: Array("CLAVTPM1".utf8) + [0, 0]) }
        #expect(throws: KeychainError.self) { try SealedSecret(decoding: [1, 2, 3]) }
    }
}

extension [UInt8] {
    /// True when `needle` appears somewhere in these bytes.
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
