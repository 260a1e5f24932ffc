import ClavisTestSupport
import Foundation
import Security
import Testing

/// SecTrust over the test PKI: chains to an anchored test root are accepted, and expired, wrong-hostname,
/// wrong-usage and unanchored ones are refused with Apple's codes.
@Suite struct SecTrustTests {
    /// A trust for `names` (leaf first) under `policy`, anchored at `anchors` when given.
    func makeTrust(_ names: [String], _ policy: CFTypeRef, anchors: [String]? = ["root"]) throws -> SecTrust {
        let pki = try testPKI()
        var trust: SecTrust?
        let certificates = try names.map { try pki.certificate($0) }
        #expect(SecTrustCreateWithCertificates(certificates as CFArray, policy, &trust) == errSecSuccess)
        let made = try #require(trust)
        if let anchors {
            let anchorCertificates = try anchors.map { try pki.certificate($0) }
            #expect(SecTrustSetAnchorCertificates(made, anchorCertificates as CFArray) == errSecSuccess)
        }
        return made
    }

    /// Evaluates, returning the answer and the error's code.
    func evaluate(_ trust: SecTrust) -> (Bool, Int?, String) {
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        #expect(trusted == (error == nil))
        if let error { #expect(CFErrorGetDomain(error) as String == kCFErrorDomainOSStatus as String) }
        return (trusted, error.map { CFErrorGetCode($0) }, error.map { CFErrorCopyDescription($0) as String } ?? "")
    }

    /// The DER of each certificate in the trust's chain.
    func chainDER(_ trust: SecTrust) -> [Data] {
        (SecTrustCopyCertificateChain(trust) as? [SecCertificate] ?? []).map { SecCertificateCopyData($0) as Data }
    }

    @Test func chainToAnAnchoredTestRootIsTrusted() throws {
        let pki = try testPKI()
        let trust = try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString))
        #expect(evaluate(trust).0)
        #expect(SecTrustGetCertificateCount(trust) == 3)
        #expect(chainDER(trust) == [try pki.der("leaf"), try pki.der("int"), try pki.der("root")])
        let key = try #require(SecTrustCopyKey(trust))
        #expect(key == SecCertificateCopyKey(try pki.certificate("leaf")))
        #expect(CFGetTypeID(trust) == SecTrustGetTypeID())
    }

    @Test func singleCertificateAndBasicPolicyAreAccepted() throws {
        let pki = try testPKI()
        var trust: SecTrust?
        let policy = SecPolicyCreateBasicX509()
        #expect(CFGetTypeID(policy) == SecPolicyGetTypeID())
        #expect(SecTrustCreateWithCertificates(try pki.certificate("int"), policy, &trust) == errSecSuccess)
        let made = try #require(trust)
        #expect(SecTrustSetAnchorCertificates(made, [try pki.certificate("root")] as CFArray) == errSecSuccess)
        #expect(evaluate(made).0)
        #expect(SecTrustGetCertificateCount(made) == 2)
    }

    @Test func anyCertificateSetAsAnchorEndsTheChain() throws {
        let trust = try makeTrust(["leaf"], SecPolicyCreateBasicX509(), anchors: ["int"])
        #expect(evaluate(trust).0)
        #expect(SecTrustGetCertificateCount(trust) == 2)
    }

    @Test func missingIntermediateIsNotTrusted() throws {
        let trust = try makeTrust(["leaf"], SecPolicyCreateBasicX509())
        let (trusted, code, description) = evaluate(trust)
        #expect(!trusted)
        #expect(code == Int(errSecNotTrusted))
        #expect(description.contains("leaf.clavis.test"))
        #expect(SecTrustGetCertificateCount(trust) == 1)
    }

    @Test func expiredLeafAnswersErrSecCertificateExpired() throws {
        let trust = try makeTrust(["expired", "int"], SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString))
        let (trusted, code, description) = evaluate(trust)
        #expect(!trusted)
        #expect(code == Int(errSecCertificateExpired))
        #expect(description.contains("expired"))
    }

    @Test func verifyDateDecidesValidity() throws {
        let trust = try makeTrust(["leaf", "int"], SecPolicyCreateBasicX509())
        #expect(evaluate(trust).0)
        #expect(SecTrustSetVerifyDate(trust, Date(timeIntervalSinceNow: 40 * 365 * 86400) as CFDate) == errSecSuccess)
        #expect(evaluate(trust).1 == Int(errSecCertificateExpired))
        #expect(SecTrustSetVerifyDate(trust, Date(timeIntervalSince1970: 946_684_800) as CFDate) == errSecSuccess)
        #expect(evaluate(trust).1 == Int(errSecCertificateNotValidYet))
        #expect(SecTrustSetVerifyDate(trust, Date(timeIntervalSinceNow: 86400) as CFDate) == errSecSuccess)
        #expect(evaluate(trust).0)
        // Dates no clock reaches are expired or not yet valid, never a crash; NaN counts as now.
        for (seconds, code) in [(1e300, errSecCertificateExpired), (-Double.infinity, errSecCertificateNotValidYet)] {
            #expect(SecTrustSetVerifyDate(trust, Date(timeIntervalSince1970: seconds) as CFDate) == errSecSuccess)
            #expect(evaluate(trust).1 == Int(code))
        }
        #expect(SecTrustSetVerifyDate(trust, Date(timeIntervalSince1970: .nan) as CFDate) == errSecSuccess)
        #expect(evaluate(trust).0)
    }

    @Test func everyPolicyOfATrustMustHold() throws {
        let both = try makeTrust(
            ["leaf", "int"],
            [
                SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString),
                SecPolicyCreateSSL(true, "other.example" as CFString),
            ] as CFArray)
        #expect(evaluate(both).1 == Int(errSecHostNameMismatch))
        let sslAndBasic = try makeTrust(
            ["leaf", "int"],
            [SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString), SecPolicyCreateBasicX509()] as CFArray)
        #expect(evaluate(sslAndBasic).0)
    }

    @Test func wrongHostnameAnswersErrSecHostNameMismatch() throws {
        let leafForOther = try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "other.example" as CFString))
        let (trusted, code, description) = evaluate(leafForOther)
        #expect(!trusted)
        #expect(code == Int(errSecHostNameMismatch))
        #expect(description.contains("does not match"))
        let otherForLeaf = try makeTrust(["other", "int"], SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString))
        #expect(evaluate(otherForLeaf).1 == Int(errSecHostNameMismatch))
        #expect(evaluate(try makeTrust(["other", "int"], SecPolicyCreateSSL(true, "other.example" as CFString))).0)
    }

    @Test func everyAlternativeDNSNameMatchesAndNoHostnameChecksNone() throws {
        #expect(evaluate(try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "www.clavis.test" as CFString))).0)
        #expect(evaluate(try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "WWW.Clavis.Test" as CFString))).0)
        #expect(evaluate(try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, nil))).0)
        let sibling = try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "x.leaf.clavis.test" as CFString))
        #expect(evaluate(sibling).1 == Int(errSecHostNameMismatch))
    }

    @Test func ipAddressMatchesOnlyTheAlternativeIPAddress() throws {
        #expect(evaluate(try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "192.0.2.7" as CFString))).0)
        let other = try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "192.0.2.8" as CFString))
        #expect(evaluate(other).1 == Int(errSecHostNameMismatch))
        let dnsOnly = try makeTrust(["other", "int"], SecPolicyCreateSSL(true, "192.0.2.7" as CFString))
        #expect(evaluate(dnsOnly).1 == Int(errSecHostNameMismatch))
    }

    @Test func clientOnlyCertificateIsRefusedForAServer() throws {
        let server = try makeTrust(["client", "int"], SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString))
        #expect(evaluate(server).1 == Int(errSecInvalidExtendedKeyUsage))
        #expect(evaluate(try makeTrust(["client", "int"], SecPolicyCreateSSL(false, nil))).0)
        #expect(evaluate(try makeTrust(["client", "int"], SecPolicyCreateBasicX509())).0)
        #expect(
            evaluate(try makeTrust(["other", "int"], SecPolicyCreateSSL(false, nil))).1
                == Int(errSecInvalidExtendedKeyUsage))
    }

    @Test func testRootIsNotTrustedWithoutBeingSetAsAnchor() throws {
        let trust = try makeTrust(["leaf", "int"], SecPolicyCreateBasicX509(), anchors: nil)
        #expect(evaluate(trust).1 == Int(errSecNotTrusted))
        let elsewhere = try makeTrust(["leaf", "int"], SecPolicyCreateBasicX509(), anchors: ["other"])
        #expect(evaluate(elsewhere).1 == Int(errSecNotTrusted))
    }

    @Test func anchorsOnlyDecidesWhetherSystemAnchorsCount() throws {
        // ISRG Root X1 is among the system's anchors (ca-certificates): alone, it is trusted by the system store.
        let pem = try String(contentsOfFile: "/etc/ssl/certs/ISRG_Root_X1.pem", encoding: .utf8)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: base64))
        let system = try #require(SecCertificateCreateWithData(nil, der as CFData))
        var made: SecTrust?
        #expect(SecTrustCreateWithCertificates([system] as CFArray, SecPolicyCreateBasicX509(), &made) == errSecSuccess)
        let trust = try #require(made)
        #expect(evaluate(trust).0)
        let testRoot = try testPKI().certificate("root")
        #expect(SecTrustSetAnchorCertificates(trust, [testRoot] as CFArray) == errSecSuccess)
        #expect(evaluate(trust).1 == Int(errSecNotTrusted))
        #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        #expect(evaluate(trust).0)
        #expect(SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess)
        #expect(evaluate(trust).1 == Int(errSecNotTrusted))
        #expect(SecTrustSetAnchorCertificates(trust, nil) == errSecSuccess)
        #expect(evaluate(trust).0)
        #expect(SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess)
        #expect(evaluate(trust).1 == Int(errSecNotTrusted))
    }

    @Test func anchoredTestChainStaysTrustedWithSystemAnchorsToo() throws {
        let trust = try makeTrust(["leaf", "int"], SecPolicyCreateBasicX509())
        #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        #expect(evaluate(trust).0)
    }

    @Test func oneTrustIsEvaluatedFromManyTasksAtOnce() async throws {
        let trust = try makeTrust(["leaf", "int"], SecPolicyCreateSSL(true, "leaf.clavis.test" as CFString))
        let expired = try makeTrust(["expired", "int"], SecPolicyCreateBasicX509())
        let outcomes = await withTaskGroup(of: (Bool, Int).self) { group in
            for index in 0..<16 {
                group.addTask {
                    if index.isMultiple(of: 4) {
                        _ = SecTrustSetVerifyDate(trust, Date() as CFDate)
                    }
                    return (SecTrustEvaluateWithError(trust, nil), SecTrustGetCertificateCount(expired))
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 16)
        #expect(outcomes.allSatisfy { $0 == (true, 3) })
        #expect(evaluate(expired).1 == Int(errSecCertificateExpired))
    }

    @Test func somethingOtherThanCertificatesAnswersErrSecParam() throws {
        let leaf = try testPKI().certificate("leaf")
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates("leaf" as CFString, nil, &trust) == errSecParam)
        #expect(trust == nil)
        #expect(SecTrustCreateWithCertificates([] as CFArray, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates([leaf, "x" as CFString] as CFArray, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(leaf, "policy" as CFString, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(leaf, nil, &trust) == errSecSuccess)
        let made = try #require(trust)
        #expect(SecTrustSetAnchorCertificates(made, ["x" as CFString] as CFArray) == errSecParam)
    }
}
