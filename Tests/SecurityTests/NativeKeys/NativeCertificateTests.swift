import ClavisClient
import ClavisCore
import ClavisCrypto
import ClavisTestSupport
import Foundation
import Security
import Testing

/// The Foundation-free certificate and identity layer of `ClavisClient` (`CertificateItemFormat`,
/// `PKCS12Archive`, `KeychainClient`'s certificate and identity calls), checked against `Security`.
@Suite(.preparedKeychain) struct NativeCertificateTests {
    @Test func aCertificateItemCarriesApplesDerivedAttributes() throws {
        let der = try testPKI().der("leaf")
        let certificate = try X509Certificate(der: Array(der))
        let item = CertificateItemFormat.newItem(for: certificate)
        #expect(item.itemClass == .certificate)
        #expect(item.attributes[.label] == .string("leaf.clavis.test"))
        #expect(item.attributes[.certificateType] == .number(3))
        #expect(item.attributes[.serialNumber] == .data(Data([0x00, 0x8B, 0xAD, 0xF0, 0x0D])))
        #expect(certificate.emailAddresses == ["leaf@clavis.test", "owner@clavis.test"])
        // The public key hash is the application label of the certificate's key.
        let hash = try #require(CertificateItemFormat.publicKeyHash(of: certificate))
        #expect(item.attributes[.publicKeyHash] == .data(Data(hash)))
        #expect(try KeyItemFormat.applicationLabel(of: certificate.publicKey()) == Data(hash))
        // A caller's label is kept; the derived attributes replace the caller's.
        let labelled = CertificateItemFormat.newItem(
            for: certificate, attributes: [.label: .string("given"), .certificateType: .number(9)])
        #expect(labelled.attributes[.label] == .string("given"))
        #expect(labelled.attributes[.certificateType] == .number(3))
    }

    @Test func aStoredCertificateIsFoundNativelyAndBySecurity() throws {
        let client = try KeychainClient()
        let certificate = try X509Certificate(der: Array(try testPKI().der("client")))
        let label = "native.certificate.\(UUID().uuidString)"
        let stored = try client.addCertificate(certificate, attributes: [.label: .string(label)])
        #expect(stored.item.attributes[.subject] != nil)
        let found = try client.findCertificates(
            ItemQuery(itemClass: .certificate, attributes: [.label: .string(label)]))
        #expect(found.map { $0.certificate.der } == [certificate.der])

        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: label,
            kSecReturnAttributes as String: true,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(
            attributes[kSecAttrIssuer as String] as? Data
                == stored.item.attributes[.issuer].flatMap {
                    if case .data(let data) = $0 { data } else { nil }
                })
        #expect(throws: ClavisCore.KeychainError.self) { _ = try client.addCertificate(certificate) }
    }

    @Test func anArchivesIdentityIsStoredPairedAndSigns() throws {
        let client = try KeychainClient()
        let archive = try testArchives().archive(.rsa)
        let opened = try PKCS12Archive(der: Array(archive.data), passphrase: SecureBytes(Array("secret".utf8)))
        #expect(opened.friendlyName == archive.name)
        #expect(opened.chain.map(\.der) == [Array(archive.leaf), Array(archive.intermediate), Array(archive.root)])
        let certificate = try #require(opened.certificate)
        let privateKey = try #require(opened.privateKey)
        let label = "native.identity.\(UUID().uuidString)"
        _ = try client.addIdentity(
            certificate: certificate, privateKey: privateKey, attributes: [.label: .string(label)])

        let identities = try client.findIdentities(
            ItemQuery(itemClass: .certificate, attributes: [.label: .string(label)]))
        #expect(identities.count == 1)
        let identity = try #require(identities.first)
        #expect(identity.certificate?.certificate.der == certificate.der)
        let key = try #require(identity.privateKey)
        let message = Array("signed by the identity".utf8)
        let signature = try client.sign(message, with: key)
        #expect(try testArchives().opensslVerifies(Data(signature), of: Data(message), leaf: archive.leaf, pss: false))

        // Security sees the same identity.
        var result: CFTypeRef?
        let query: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: label]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)

        // Deleting the identity removes its certificate and key.
        #expect(
            try client.deleteIdentities(ItemQuery(itemClass: .certificate, attributes: [.label: .string(label)])) == 1)
        #expect(
            try client.findIdentities(ItemQuery(itemClass: .certificate, attributes: [.label: .string(label)])).isEmpty)
    }

    @Test func aWrongPassphraseOrBadBytesAnswerApplesStatuses() throws {
        let archive = try testArchives().archive(.ec)
        do {
            _ = try PKCS12Archive(der: Array(archive.data), passphrase: SecureBytes(Array("wrong".utf8)))
            Issue.record("a wrong passphrase opened the archive")
        } catch {
            #expect(error.code == .authFailed)
        }
        do {
            _ = try PKCS12Archive(der: [0x30, 0x03, 0x02, 0x01, 0x03], passphrase: SecureBytes(Array("secret".utf8)))
            Issue.record("five bytes opened as an archive")
        } catch {
            #expect(error.code == .decode)
        }
        let other = try X509Certificate(der: Array(try testPKI().der("other")))
        let opened = try PKCS12Archive(der: Array(archive.data), passphrase: SecureBytes(Array("secret".utf8)))
        #expect(!PKCS12Archive.key(try #require(opened.privateKey), matches: other))
        #expect(throws: ClavisCore.KeychainError.self) {
            _ = try KeychainClient().addIdentity(certificate: other, privateKey: try #require(opened.privateKey))
        }
    }

    @Test func aTrustAnswersApplesStatusForEachRefusal() throws {
        let pki = try testPKI()
        func certificate(_ name: String) throws -> X509Certificate { try X509Certificate(der: Array(pki.der(name))) }
        let intermediate = try certificate("int")
        let root = try certificate("root")
        func evaluate(_ leaf: String, _ policies: [TrustPolicy], anchors: [X509Certificate]) throws
            -> CertificateTrust.Evaluation
        {
            var trust = CertificateTrust(certificates: [try certificate(leaf), intermediate], policies: policies)
            trust.anchors = anchors
            trust.anchorsOnly = true
            return trust.evaluate()
        }
        let trusted = try evaluate("leaf", [.ssl(server: true, hostname: "leaf.clavis.test")], anchors: [root])
        #expect(trusted.isTrusted)
        #expect(trusted.chain.map(\.der) == [try certificate("leaf").der, intermediate.der, root.der])
        let mismatch = try evaluate("leaf", [.ssl(server: true, hostname: "other.example")], anchors: [root])
        #expect(mismatch.failure?.code == .hostNameMismatch)
        #expect(try evaluate("expired", [.basicX509], anchors: [root]).failure?.code == .certificateExpired)
        #expect(
            try evaluate("client", [.ssl(server: true, hostname: nil)], anchors: [root]).failure?.code
                == .invalidExtendedKeyUsage)
        let untrusted = try evaluate("leaf", [.basicX509], anchors: [])
        #expect(untrusted.failure?.code == .notTrusted)
        #expect(untrusted.failure?.reason.contains("certificate is not trusted") == true)
    }
}
