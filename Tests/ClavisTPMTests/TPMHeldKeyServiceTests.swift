import ClavisClient
import ClavisCore
import ClavisCrypto
import ClavisStore
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
