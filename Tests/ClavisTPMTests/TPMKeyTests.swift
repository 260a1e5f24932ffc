import ClavisCore
import ClavisCrypto
import ClavisTPM
import ClavisTestSupport
import Foundation
import Testing

/// P-256 keys created and used inside a (software) TPM: signatures `openssl` verifies, ECDH that agrees with a
/// software key, and a wrapped key no other TPM can use.
@Suite(.serialized)
struct TPMKeyTests {
    private let message = Array("signed inside the TPM".utf8)

    @Test func tpmKeySignsAndOpenSSLVerifies() throws {
        let tpm = try SoftwareTPM()
        let connection = try TPMConnection(tcti: tpm.tcti)
        let key = try connection.createP256Key()
        #expect(key.publicKey.count == 65 && key.publicKey.first == 0x04)
        let wrapped = try TPMKey(wrapped: key.wrapped)
        #expect(wrapped == key)
        let raw = try connection.sign(digest: DigestAlgorithm.sha256.hash(message), with: wrapped)
        let signature = try ECDSASignature.der(fromRaw: raw, curve: .p256)
        let folder = try makeTemporaryFolder("tpm-signature")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // SubjectPublicKeyInfo of a P-256 key: the fixed DER prefix, then the point.
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
            0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ]
        let pem =
            "-----BEGIN PUBLIC KEY-----\n"
            + Data(prefix + key.publicKey).base64EncodedString(options: .lineLength64Characters)
            + "\n-----END PUBLIC KEY-----\n"
        try Data(pem.utf8).write(to: URL(fileURLWithPath: folder + "/key.pem"))
        try Data(signature).write(to: URL(fileURLWithPath: folder + "/signature.der"))
        try Data(message).write(to: URL(fileURLWithPath: folder + "/message"))
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "dgst", "-sha256", "-verify", folder + "/key.pem", "-signature", folder + "/signature.der",
            folder + "/message",
        ]
        let output = Pipe()
        openssl.standardOutput = output
        try openssl.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        openssl.waitUntilExit()
        #expect(openssl.terminationStatus == 0)
        #expect(said.contains("Verified OK"))
    }

    @Test func tpmKeyAgreesWithASoftwareKey() throws {
        let tpm = try SoftwareTPM()
        let connection = try TPMConnection(tcti: tpm.tcti)
        let key = try connection.createP256Key()
        let software = try AsymmetricKey.generate(curve: .p256)
        let inTPM = try connection.sharedSecret(with: software.publicRepresentation(), key: key)
        let tpmPublic = try AsymmetricKey.ellipticCurve(x963: SecureBytes(key.publicKey), isPrivate: false)
        #expect(inTPM == (try software.sharedSecret(with: tpmPublic, cofactor: false)))
    }

    @Test func anotherTPMCannotUseTheKey() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let key = try TPMConnection(tcti: first.tcti).createP256Key()
        let error = #expect(throws: KeychainError.self) {
            try TPMConnection(tcti: second.tcti).sign(digest: Array(repeating: 1, count: 32), with: key)
        }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("another TPM made it") == true)
    }

    @Test func tpmKeySignsEveryDigestLengthAppleSignsAsSoftwareECDSAWould() throws {
        let tpm = try SoftwareTPM()
        let connection = try TPMConnection(tcti: tpm.tcti)
        let key = try connection.createP256Key()
        let publicKey = try AsymmetricKey.ellipticCurve(x963: SecureBytes(key.publicKey), isPrivate: false)
        for algorithm in [DigestAlgorithm.sha1, .sha224, .sha256, .sha384, .sha512] {
            let digest = algorithm.hash(message)
            let signature = try ECDSASignature.der(
                fromRaw: try connection.sign(digest: digest, with: key), curve: .p256)
            // OpenSSL's verification over the whole digest: the TPM's signature over the cut or padded one holds.
            #expect(
                try publicKey.verify(signature: signature, digest: digest, algorithm: nil, padding: .ecdsa),
                "\(algorithm)")
        }
    }

    @Test func badInputsAreRefusedWithReasons() throws {
        let tpm = try SoftwareTPM()
        let connection = try TPMConnection(tcti: tpm.tcti)
        let key = try connection.createP256Key()
        let digest = #expect(throws: KeychainError.self) { try connection.sign(digest: [1, 2, 3], with: key) }
        #expect(digest?.code == .param)
        let offCurve = [0x04] + [UInt8](repeating: 7, count: 64)
        let peer = #expect(throws: KeychainError.self) { try connection.sharedSecret(with: offCurve, key: key) }
        #expect(peer?.code == .param)
        #expect(throws: KeychainError.self) { try TPMKey(wrapped: [0x04] + key.publicKey) }
        #expect(!TPMKey.isWrapped(key.publicKey))
        #expect(TPMKey.isWrapped(key.wrapped))
    }
}
