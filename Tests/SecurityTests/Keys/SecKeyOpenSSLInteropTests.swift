import ClavisTestSupport
import Foundation
import Security
import Testing

/// Clavis against the `openssl` command line: signatures both ways, its keys read through Apple's formats, and
/// ECDH agreeing with `openssl pkeyutl -derive`.
@Suite struct SecKeyOpenSSLInteropTests {
    static let message = Data("signed on one side, checked on the other".utf8)
    /// The DER SubjectPublicKeyInfo header of a P-256 key, before its 65-byte point.
    static let p256InfoHeader = Data(hex: "3059301306072a8648ce3d020106082a8648ce3d030107034200")

    func openssl(_ arguments: [String], in folder: String) throws -> ProcessOutput {
        let output = try runOpenSSL(arguments, in: folder)
        if output.status != 0 { Issue.record("openssl \(arguments.joined(separator: " ")): \(output.standardError)") }
        return output
    }

    @Test func clavisECDSASignatureVerifiesWithOpenSSL() throws {
        let folder = try makeTemporaryFolder("seckey-openssl")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let point = try externalRepresentation(publicKey(of: key))
        try (Self.p256InfoHeader + point).write(to: URL(fileURLWithPath: folder + "/pub.der"))
        try Self.message.write(to: URL(fileURLWithPath: folder + "/message"))
        let signature = try #require(sign(key, .ecdsaSignatureMessageX962SHA256, Self.message).0)
        try signature.write(to: URL(fileURLWithPath: folder + "/signature"))
        _ = try openssl(["pkey", "-pubin", "-inform", "DER", "-in", "pub.der", "-out", "pub.pem"], in: folder)
        let verified = try openssl(
            ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "signature", "message"], in: folder)
        #expect(verified.status == 0)
        #expect(verified.standardOutput.contains("Verified OK"))

        var altered = signature
        altered[altered.count - 1] ^= 1
        try altered.write(to: URL(fileURLWithPath: folder + "/signature"))
        let refused = try runOpenSSL(
            ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "signature", "message"], in: folder)
        #expect(refused.status != 0)
    }

    @Test func openSSLECDSASignatureAndKeyWorkInClavis() throws {
        let folder = try makeTemporaryFolder("seckey-openssl")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.message.write(to: URL(fileURLWithPath: folder + "/message"))
        _ = try openssl(
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "key.pem"], in: folder)
        _ = try openssl(["dgst", "-sha384", "-sign", "key.pem", "-out", "signature", "message"], in: folder)
        _ = try openssl(["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "pub.der"], in: folder)
        let info = try Data(contentsOf: URL(fileURLWithPath: folder + "/pub.der"))
        let (key, error) = makeKey(
            info.suffix(97), type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPublic)
        #expect(error == nil)
        let signature = try Data(contentsOf: URL(fileURLWithPath: folder + "/signature"))
        #expect(verify(try #require(key), .ecdsaSignatureMessageX962SHA384, Self.message, signature).0)
    }

    @Test func clavisPSSSignatureVerifiesWithOpenSSL() throws {
        let folder = try makeTemporaryFolder("seckey-openssl")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        try externalRepresentation(publicKey(of: key)).write(to: URL(fileURLWithPath: folder + "/pub.der"))
        try Self.message.write(to: URL(fileURLWithPath: folder + "/message"))
        for (digest, algorithm, salt) in [
            ("-sha256", SecKeyAlgorithm.rsaSignatureMessagePSSSHA256, "32"),
            ("-sha512", .rsaSignatureMessagePSSSHA512, "64"),
        ] {
            let signature = try #require(sign(key, algorithm, Self.message).0)
            try signature.write(to: URL(fileURLWithPath: folder + "/signature"))
            _ = try openssl(
                ["rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "pub.der", "-pubout", "-out", "pub.pem"],
                in: folder)
            let verified = try openssl(
                [
                    "dgst", digest, "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:\(salt)",
                    "-verify", "pub.pem", "-signature", "signature", "message",
                ], in: folder)
            #expect(verified.standardOutput.contains("Verified OK"))
        }
    }

    @Test func openSSLRSAKeyImportsAndItsSignatureVerifies() throws {
        let folder = try makeTemporaryFolder("seckey-openssl")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.message.write(to: URL(fileURLWithPath: folder + "/message"))
        _ = try openssl(
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"], in: folder)
        _ = try openssl(["dgst", "-sha256", "-sign", "key.pem", "-out", "signature", "message"], in: folder)
        _ = try openssl(
            ["rsa", "-in", "key.pem", "-traditional", "-outform", "DER", "-out", "private.der"], in: folder)
        let privateDER = try Data(contentsOf: URL(fileURLWithPath: folder + "/private.der"))
        let (key, error) = makeKey(privateDER, type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPrivate)
        #expect(error == nil)
        let imported = try #require(key)
        #expect(try externalRepresentation(imported) == privateDER)
        let signature = try Data(contentsOf: URL(fileURLWithPath: folder + "/signature"))
        #expect(verify(try publicKey(of: imported), .rsaSignatureMessagePKCS1v15SHA256, Self.message, signature).0)
        // Deterministic padding: Clavis makes the very same PKCS#1 v1.5 signature with OpenSSL's key.
        #expect(sign(imported, .rsaSignatureMessagePKCS1v15SHA256, Self.message).0 == signature)
    }

    @Test func ecdhAgreesWithOpenSSLDerive() throws {
        let folder = try makeTemporaryFolder("seckey-openssl")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try openssl(
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "theirs.pem"], in: folder)
        _ = try openssl(["pkey", "-in", "theirs.pem", "-pubout", "-outform", "DER", "-out", "theirs.der"], in: folder)
        let mine = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let myPoint = try externalRepresentation(publicKey(of: mine))
        try (Self.p256InfoHeader + myPoint).write(to: URL(fileURLWithPath: folder + "/mine.der"))
        _ = try openssl(["pkey", "-pubin", "-inform", "DER", "-in", "mine.der", "-out", "mine.pem"], in: folder)
        _ = try openssl(
            ["pkeyutl", "-derive", "-inkey", "theirs.pem", "-peerkey", "mine.pem", "-out", "secret"], in: folder)
        let theirSecret = try Data(contentsOf: URL(fileURLWithPath: folder + "/secret"))
        let theirInfo = try Data(contentsOf: URL(fileURLWithPath: folder + "/theirs.der"))
        let theirKey = try #require(
            makeKey(theirInfo.suffix(65), type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPublic)
                .0)
        var error: Unmanaged<CFError>?
        let ours = SecKeyCopyKeyExchangeResult(mine, .ecdhKeyExchangeStandard, theirKey, [:] as CFDictionary, &error)
        #expect(ours as Data? == theirSecret)
        #expect(theirSecret.count == 32)
    }
}
