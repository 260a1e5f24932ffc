import ClavisClient
import ClavisCore
import ClavisCrypto
import ClavisStore
import ClavisTPM
import Foundation
import Testing

/// `kSecAttrTokenIDSecureEnclave` keys of a keychain bound to a TPM live in that TPM: the service creates them there
/// and every signature and agreement runs there.
@Suite(.serialized)
struct TPMHeldKeyServiceTests {
    @Test func tokenKeyOfATPMBoundKeychainSignsInTheTPMOnly() throws {
        var tpm: SoftwareTPM? = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let configuration = ClavisConfiguration.bound(to: try #require(tpm), home: folder.home)
        let client = try KeychainClient(configuration: configuration)
        #expect(try client.status().deviceKey == .tpm)
        let item = try client.addGeneratedKey(
            NewItem(
                itemClass: .key, attributes: [.tokenID: .string(TokenKey.secureEnclave), .label: .string("tpm key")],
                secret: SecureBytes([])))
        let publicBytes = try #require(item.secret).unprotectedBytes()
        #expect(publicBytes.count == 65 && publicBytes.first == 0x04)
        let reference = item.persistentReference
        let digest = DigestAlgorithm.sha256.hash(Array("held by the TPM".utf8))
        let signature = try client.useKey(reference, for: .signDigest(digest)).unprotectedBytes()
        let publicKey = try AsymmetricKey.ellipticCurve(x963: SecureBytes(publicBytes), isPrivate: false)
        #expect(try publicKey.verify(signature: signature, digest: digest, algorithm: nil, padding: .ecdsa))
        // What the service hands out of the item is its public key, never the TPM's object.
        let found = try client.find(
            ItemQuery(itemClass: .key, attributes: [.label: .string("tpm key")], returnsSecret: true))
        #expect(found.first?.secret?.unprotectedBytes() == publicBytes)
        #expect(found.first?.attributes[.tokenHolder] == .string(TokenKey.Holder.tpm.rawValue))
        let keys = try client.findKeys(ItemQuery(itemClass: .key, attributes: [.label: .string("tpm key")]))
        #expect(keys.first?.tokenHolder == .tpm)
        // Only the service names the holder: a caller can neither add nor change it.
        let forged = NewItem(
            itemClass: .key, attributes: [.label: .string("forged"), .tokenHolder: .string("tpm")],
            secret: SecureBytes(Array(repeating: 1, count: 32)))
        #expect(throws: KeychainError.self) { try client.add(forged) }
        // The item keeps the TPM's object (its private part encrypted by the TPM), and even that is sealed: no file of
        // the folder holds it in clear.
        let stored = try Keychain(
            home: folder.home, deviceKeyOptions: DeviceKeyOptions(binding: .tpm, tcti: try #require(tpm).tcti)
        )
        .find(ItemQuery(itemClass: .key, persistentReference: reference, returnsSecret: true)).resultOrThrow()
        let object = try #require(stored.first?.secret).unprotectedBytes()
        #expect(TPMKey.isWrapped(object))
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.home.path) {
            let contents = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.home.path + "/" + name)))
            #expect(!contents.indices.contains { contents[$0...].starts(with: object) }, "\(name) holds it")
        }
        // The keychain stays open, but without its TPM the key cannot sign: it is not in this process.
        tpm = nil
        let error = #expect(throws: KeychainError.self) { try client.useKey(reference, for: .signDigest(digest)) }
        #expect(error?.code == .notAvailable)
    }
}

extension ClavisConfiguration {
    /// The configuration of an embedded keychain in `home` that a new keychain binds to `tpm`.
    static func bound(to tpm: SoftwareTPM, home: KeychainHome) -> ClavisConfiguration {
        var configuration = ClavisConfiguration(home: home)
        configuration.deviceKeyBinding = "tpm"
        configuration.tpmTCTI = tpm.tcti
        return configuration
    }
}

/// Access control on a TPM-held key goes through the evaluator every other item's does: the TPM is asked to sign
/// only once the key's policy is satisfied.
@Suite(.serialized)
struct TPMHeldKeyAccessControlTests {
    @Test func tpmKeyWithADevicePasscodePolicySignsOnlyOnceThePasscodeIsGiven() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let askpass = folder.path + "/askpass"
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        // The askpass program answers the passcode, as a desktop's prompt would.
        #expect(
            FileManager.default.createFile(
                atPath: askpass, contents: Data("#!/bin/sh\necho 7391\n".utf8), attributes: [.posixPermissions: 0o700]))
        var configuration = ClavisConfiguration.bound(to: tpm, home: folder.home)
        configuration.askpassProgram = askpass
        let client = try KeychainClient(configuration: configuration)
        try client.setPasscode(SecureBytes(Array("7391".utf8)), current: nil, strength: .cheapForTesting)
        let access = AccessControl(
            protection: .whenPasscodeSetThisDeviceOnly, flags: [.privateKeyUsage, .devicePasscode])
        let item = try client.addGeneratedKey(
            NewItem(
                itemClass: .key,
                attributes: [
                    .tokenID: .string(TokenKey.secureEnclave), .accessible: .string(access.protection.rawValue),
                    .accessControl: .data(access.encoded),
                ],
                secret: SecureBytes([])))
        #expect(item.attributes[.tokenHolder] == .string("tpm"))
        let digest = DigestAlgorithm.sha256.hash(Array("needs the passcode".utf8))
        let refused = #expect(throws: KeychainError.self) {
            try client.useKey(
                item.persistentReference, for: .signDigest(digest),
                authentication: CallAuthentication(interface: .fail))
        }
        #expect(refused?.code == .interactionNotAllowed)
        let signature = try client.useKey(item.persistentReference, for: .signDigest(digest)).unprotectedBytes()
        let publicKey = try AsymmetricKey.ellipticCurve(x963: try #require(item.secret), isPrivate: false)
        #expect(try publicKey.verify(signature: signature, digest: digest, algorithm: nil, padding: .ecdsa))
    }
}
