import ClavisTestSupport
import Foundation
import Security
import Testing

@testable import clavis_fuzz

/// Truncated, bit-flipped, spliced and random versions of real certificates: SecCertificateCreateWithData answers
/// nil or a certificate, and every call on what it accepts answers without trapping.
@Suite struct SecCertificateParserFuzzTests {
    @Test func mutatedCertificatesNeverTrap() throws {
        let pki = try testPKI()
        var generator = SplitMix64(state: 1212)
        var accepted = 0
        var refused = 0
        for name in ["leaf", "other", "root", "expired", "spaced"] {
            let valid = try pki.der(name)
            var inputs = SecKeyParserFuzzTests.mutations(of: valid, using: &generator, count: 120)
            for _ in 0..<60 {
                // A changed length byte somewhere in the first hundred bytes, where the nested headers are.
                var relength = valid
                let index = Int.random(in: 0..<min(100, valid.count), using: &generator)
                relength[index] = UInt8.random(in: 0...255, using: &generator)
                inputs.append(relength)
            }
            for input in inputs {
                guard let certificate = SecCertificateCreateWithData(nil, input as CFData) else {
                    refused += 1
                    continue
                }
                accepted += 1
                #expect(SecCertificateCopyData(certificate) as Data == input)
                exercise(certificate)
            }
        }
        // Most mutations are refused; bit flips inside names, keys or signatures still parse.
        #expect(refused > accepted)
        #expect(accepted > 0)
    }

    /// Calls every accessor and a trust evaluation.
    func exercise(_ certificate: SecCertificate) {
        _ = SecCertificateCopySubjectSummary(certificate)
        var name: CFString?
        let status = SecCertificateCopyCommonName(certificate, &name)
        #expect(status == errSecSuccess || status == errSecInternal)
        var addresses: CFArray?
        #expect(SecCertificateCopyEmailAddresses(certificate, &addresses) == errSecSuccess)
        var error: Unmanaged<CFError>?
        _ = SecCertificateCopySerialNumberData(certificate, &error)
        _ = SecCertificateCopyNormalizedIssuerSequence(certificate)
        _ = SecCertificateCopyNormalizedSubjectSequence(certificate)
        _ = SecCertificateCopyKey(certificate)
        var trust: SecTrust?
        guard
            SecTrustCreateWithCertificates(
                certificate, SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString), &trust) == errSecSuccess,
            let trust
        else { return }
        _ = SecTrustSetAnchorCertificates(trust, [certificate] as CFArray)
        var trustError: CFError?
        _ = SecTrustEvaluateWithError(trust, &trustError)
        _ = SecTrustCopyCertificateChain(trust)
        _ = SecTrustCopyKey(trust)
    }
}
