import ClavisTestSupport
import Foundation
import Security
import Testing

/// SecCertificate's accessors on certificates made by the openssl command line, checked against what openssl
/// was told to put in them and against Python's `cryptography` reading of the same bytes.
@Suite struct SecCertificateTests {
    @Test func certificateCreatedFromDERCopiesTheSameBytesBack() throws {
        let pki = try testPKI()
        for name in ["root", "int", "leaf", "other", "expired"] {
            let der = try pki.der(name)
            let certificate = try pki.certificate(name)
            #expect(SecCertificateCopyData(certificate) as Data == der)
            #expect(CFGetTypeID(certificate) == SecCertificateGetTypeID())
        }
        #expect(try pki.certificate("leaf") == pki.certificate("leaf"))
        #expect(try pki.certificate("leaf") != pki.certificate("root"))
    }

    @Test func subjectSummaryIsTheCommonNameOrElseTheOrganisation() throws {
        let pki = try testPKI()
        #expect(SecCertificateCopySubjectSummary(try pki.certificate("leaf")) as String? == "leaf.clavis.test")
        #expect(SecCertificateCopySubjectSummary(try pki.certificate("root")) as String? == "Clavis Test Root")
        #expect(SecCertificateCopySubjectSummary(try pki.certificate("noname")) as String? == "No Name Org")
    }

    @Test func commonNameIsCopiedWithSuccess() throws {
        let pki = try testPKI()
        var name: CFString?
        #expect(SecCertificateCopyCommonName(try pki.certificate("leaf"), &name) == errSecSuccess)
        #expect(name as String? == "leaf.clavis.test")
        #expect(SecCertificateCopyCommonName(try pki.certificate("int"), &name) == errSecSuccess)
        #expect(name as String? == "Clavis Test Intermediate")
    }

    @Test func subjectWithoutCommonNameAnswersErrSecInternal() throws {
        var name: CFString? = "stale" as CFString
        #expect(SecCertificateCopyCommonName(try testPKI().certificate("noname"), &name) == errSecInternal)
        #expect(name == nil)
    }

    @Test func emailAddressesComeFromTheAlternativeNamesThenTheSubject() throws {
        let pki = try testPKI()
        var addresses: CFArray?
        #expect(SecCertificateCopyEmailAddresses(try pki.certificate("leaf"), &addresses) == errSecSuccess)
        #expect(addresses as? [String] == ["leaf@clavis.test", "owner@clavis.test"])
        #expect(SecCertificateCopyEmailAddresses(try pki.certificate("other"), &addresses) == errSecSuccess)
        #expect(addresses as? [String] == [])
    }

    @Test func serialNumberKeepsTheLeadingZeroOfAPositiveNumber() throws {
        let pki = try testPKI()
        var error: Unmanaged<CFError>?
        let serial = SecCertificateCopySerialNumberData(try pki.certificate("leaf"), &error) as Data?
        #expect(error == nil)
        #expect(serial == Data([0x00, 0x8b, 0xad, 0xf0, 0x0d]))
        #expect(SecCertificateCopySerialNumberData(try pki.certificate("int"), nil) as Data? == Data([0x02]))
        #expect(try pythonCertificateFacts(pki.der("leaf"))[2] == "8badf00d")
    }

    @Test func normalizedIssuerOfALeafIsTheNormalizedSubjectOfItsIssuer() throws {
        let pki = try testPKI()
        let leaf = try pki.certificate("leaf")
        let intermediate = try pki.certificate("int")
        let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(leaf) as Data?)
        #expect(issuer == SecCertificateCopyNormalizedSubjectSequence(intermediate) as Data?)
        #expect(issuer != SecCertificateCopyNormalizedSubjectSequence(leaf) as Data?)
        let root = try pki.certificate("root")
        #expect(
            SecCertificateCopyNormalizedIssuerSequence(root) as Data?
                == SecCertificateCopyNormalizedSubjectSequence(root) as Data?)
    }

    @Test func printableStringsAreUpperCasedAndTheirBlanksFolded() throws {
        let pki = try testPKI()
        // "  clavis    Tests  " and "Mixed.Case test" in PrintableString normalize to the upper-case certificate's
        // names, which are already in normal form: its subject DER as Python's cryptography encodes it.
        let spaced = try #require(SecCertificateCopyNormalizedSubjectSequence(try pki.certificate("spaced")) as Data?)
        let upperDER = Data(hex: try pythonCertificateFacts(pki.der("upper"))[0])
        #expect(spaced == upperDER)
        #expect(SecCertificateCopyNormalizedSubjectSequence(try pki.certificate("upper")) as Data? == upperDER)
        #expect(String(decoding: spaced, as: UTF8.self).contains("CLAVIS TESTS"))
    }

    @Test func utf8StringsAreLeftAsTheyAre() throws {
        let pki = try testPKI()
        let facts = try pythonCertificateFacts(pki.der("utf8"))
        let subject = SecCertificateCopyNormalizedSubjectSequence(try pki.certificate("utf8")) as Data?
        #expect(subject == Data(hex: facts[0]))
        #expect(String(decoding: subject ?? Data(), as: UTF8.self).contains("utf8 lower  case"))
    }

    @Test(arguments: [
        ("leaf", kSecAttrKeyTypeECSECPrimeRandom as String, 256, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256),
        ("client", kSecAttrKeyTypeECSECPrimeRandom as String, 384, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256),
        ("noname", kSecAttrKeyTypeECSECPrimeRandom as String, 521, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256),
        ("other", kSecAttrKeyTypeRSA as String, 2048, SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256),
    ])
    func certificateKeyVerifiesASignatureMadeByOpenSSL(
        name: String, type: String, bits: Int, algorithm: SecKeyAlgorithm
    ) throws {
        let pki = try testPKI()
        let key = try #require(SecCertificateCopyKey(try pki.certificate(name)))
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == type)
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPublic as String)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == bits)
        let message = Data("signed by openssl for \(name)".utf8)
        let signature = try pki.opensslSignature(of: message, by: name)
        #expect(verify(key, algorithm, message, signature) == (true, nil))
        var altered = signature
        altered[altered.count / 2] ^= 1
        #expect(verify(key, algorithm, message, altered).0 == false)
        #expect(verify(key, algorithm, message + Data([0]), signature).0 == false)
    }

    @Test func keysSecKeyDoesNotHoldGiveNoKey() throws {
        let pki = try testPKI()
        #expect(SecCertificateCopyKey(try pki.certificate("ed")) == nil)
        #expect(SecCertificateCopyKey(try pki.certificate("k1")) == nil)
    }

    @Test func badInputMakesNoCertificate() throws {
        let pki = try testPKI()
        let der = try pki.der("leaf")
        let inputs: [Data] = [
            Data(), der.prefix(der.count - 1), der.prefix(1), der.prefix(der.count / 2), der + Data([0]),
            der + der, try pki.pem("leaf"), Data((0..<der.count).map { UInt8(truncatingIfNeeded: $0 &* 131) }),
            Data([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), Data([0x30, 0x80, 0x00, 0x00]),
        ]
        for input in inputs {
            #expect(SecCertificateCreateWithData(nil, input as CFData) == nil)
        }
    }
}
