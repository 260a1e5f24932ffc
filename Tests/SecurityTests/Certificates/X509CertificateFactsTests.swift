import ClavisCrypto
import ClavisTestSupport
import Foundation
import Testing

/// The facts ClavisCrypto reads from a certificate that Security's calls do not show (validity, subject key
/// identifier) agree with Python's `cryptography` reading of the same DER.
@Suite struct X509CertificateFactsTests {
    static let script = """
        import calendar, sys
        from cryptography import x509
        cert = x509.load_der_x509_certificate(bytes.fromhex(sys.argv[1]))
        print(calendar.timegm(cert.not_valid_before.timetuple()))
        print(calendar.timegm(cert.not_valid_after.timetuple()))
        try:
            print(cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest.hex())
        except x509.ExtensionNotFound:
            print("none")
        """

    @Test(arguments: ["root", "int", "leaf", "expired", "other"])
    func validityAndKeyIdentifierMatchPythonsReading(name: String) throws {
        let der = try testPKI().der(name)
        let certificate = try X509Certificate(der: Array(der))
        let facts = try runPython(Self.script, [der.hexString])
        #expect(certificate.notValidBefore == Int64(facts[0]))
        #expect(certificate.notValidAfter == Int64(facts[1]))
        #expect(certificate.subjectKeyIdentifier.map { Data($0).hexString } ?? "none" == facts[2])
    }

    @Test func expiredCertificateEndedWhereOpenSSLWasTold() throws {
        let certificate = try X509Certificate(der: Array(try testPKI().der("expired")))
        #expect(certificate.notValidBefore == 1_577_836_800)
        #expect(certificate.notValidAfter == 1_609_459_200)
    }
}
