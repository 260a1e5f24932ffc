import Foundation
import Security
import Testing

/// `clavis generate-key`, `sign` and `verify`, run as the built binary, checked against the openssl command line.
@Suite(.preparedKeychain) struct KeyCommandTests {
    private func freshFolder() throws -> (folder: String, home: String) {
        let folder = try makeTemporaryFolder("clavis-key-cli")
        return (folder, folder + "/home")
    }

    @Test(arguments: [("ec", "256", "ecdsa-sha256"), ("ec", "384", "ecdsa-sha384"), ("rsa", "2048", "rsa-pss-sha256")])
    func aGeneratedKeySignsWhatOpenSSLVerifiesWithItsPublicKey(type: String, bits: String, algorithm: String) throws {
        let (folder, home) = try freshFolder()
        let generated = try ClavisBinary.run(
            [
                "generate-key", "-t", type, "-s", bits, "-T", "release", "-l", "Release signing", "-o",
                folder + "/pub.pem",
            ],
            home: home)
        #expect(generated.status == 0, "\(generated.standardError)")
        try Data("release 1.0\n".utf8).write(to: URL(fileURLWithPath: folder + "/release.txt"))
        let signed = try ClavisBinary.run(
            ["sign", "-T", "release", "-a", algorithm, "-i", folder + "/release.txt", "-o", folder + "/release.sig"],
            home: home)
        #expect(signed.status == 0, "\(signed.standardError)")
        var check = ["dgst", "-sha\(bits == "384" ? "384" : "256")", "-verify", "pub.pem", "-signature", "release.sig"]
        if algorithm.hasPrefix("rsa-pss") {
            check += ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32"]
        }
        let verified = try runOpenSSL(check + ["release.txt"], in: folder)
        #expect(verified.status == 0, "openssl: \(verified.standardOutput) \(verified.standardError)")

        let ours = try ClavisBinary.run(
            [
                "verify", "-l", "Release signing", "-a", algorithm, "-i", folder + "/release.txt", "-s",
                folder + "/release.sig",
            ],
            home: home)
        #expect(ours.status == 0, "\(ours.standardError)")
        try Data("release 1.1\n".utf8).write(to: URL(fileURLWithPath: folder + "/release.txt"))
        let altered = try ClavisBinary.run(
            ["verify", "-T", "release", "-a", algorithm, "-i", folder + "/release.txt", "-s", folder + "/release.sig"],
            home: home)
        #expect(altered.status != 0)
        #expect(altered.standardError.contains("SecKeyVerifySignature"), "\(altered.standardError)")
    }

    @Test func aSignatureMadeByOpenSSLWithAnotherKeyDoesNotVerify() throws {
        let (folder, home) = try freshFolder()
        #expect(try ClavisBinary.run(["generate-key", "-T", "mine"], home: home).status == 0)
        try Data("message".utf8).write(to: URL(fileURLWithPath: folder + "/message"))
        #expect(
            try runOpenSSL(
                ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "other.key"],
                in: folder
            ).status == 0)
        #expect(
            try runOpenSSL(["dgst", "-sha256", "-sign", "other.key", "-out", "other.sig", "message"], in: folder).status
                == 0)
        let verified = try ClavisBinary.run(
            ["verify", "-T", "mine", "-i", folder + "/message", "-s", folder + "/other.sig"], home: home)
        #expect(verified.status != 0)
    }

    @Test func dumpKeychainListsKeysWithoutTheirPrivateBytes() throws {
        let (_, home) = try freshFolder()
        let generated = try ClavisBinary.run(["--json", "generate-key", "-T", "listed"], home: home)
        #expect(generated.status == 0, "\(generated.standardError)")
        let dumped = try ClavisBinary.run(["--json", "dump-keychain", "-d"], home: home)
        #expect(dumped.status == 0, "\(dumped.standardError)")
        let items = try #require(
            try JSONSerialization.jsonObject(with: Data(dumped.standardOutput.utf8)) as? [[String: Any]])
        let key = try #require(items.first { $0["class"] as? String == "keys" })
        let attributes = try #require(key["attributes"] as? [String: Any])
        #expect(attributes["atag"] as? String == Data("listed".utf8).base64EncodedString())
        #expect(attributes["kcls"] as? Int == 1)
        #expect(key["password"] == nil && key["passwordBase64"] == nil, "no private key bytes: \(key)")
    }

    @Test func namingNoKeyOrAnUnknownAlgorithmIsAUsageError() throws {
        let (folder, home) = try freshFolder()
        #expect(try ClavisBinary.run(["generate-key", "-t", "dsa", "-T", "x"], home: home).status == 2)
        #expect(try ClavisBinary.run(["generate-key"], home: home).status == 2)
        #expect(try ClavisBinary.run(["sign", "-i", folder + "/nothing"], home: home).status == 2)
        #expect(try ClavisBinary.run(["sign", "-T", "x", "-a", "md5", "-i", "f"], home: home).status == 2)
        let missing = try ClavisBinary.run(["sign", "-T", "absent", "-i", "/etc/hostname"], home: home)
        #expect(missing.status == 44, "errSecItemNotFound's exit status: \(missing.standardError)")
        let size = try ClavisBinary.run(["generate-key", "-t", "ec", "-s", "300", "-T", "bad"], home: home)
        #expect(size.status != 0 && size.status != 2, "a size the key type lacks fails the call")
    }
}
