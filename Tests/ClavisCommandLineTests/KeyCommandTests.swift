import ClavisTestSupport
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

    @Test(arguments: [
        ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "key.pem"],
        ["ecparam", "-name", "prime256v1", "-genkey", "-out", "key.pem"],
        ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"],
    ])
    func aPrivateKeyOpenSSLWroteImportsAndSignsForItsPublicKey(generation: [String]) throws {
        let (folder, home) = try freshFolder()
        #expect(try runOpenSSL(generation, in: folder).status == 0)
        #expect(try runOpenSSL(["pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: folder).status == 0)
        let imported = try ClavisBinary.run(["import", folder + "/key.pem", "-T", "imported"], home: home)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("imported 2 items"), "the private key and its public key")
        try Data("payload".utf8).write(to: URL(fileURLWithPath: folder + "/payload"))
        let signed = try ClavisBinary.run(
            ["sign", "-T", "imported", "-a", "ecdsa-sha256", "-i", folder + "/payload", "-o", folder + "/payload.sig"],
            home: home)
        let isRSA = generation.contains("RSA")
        if isRSA {
            let rsaSigned = try ClavisBinary.run(
                ["sign", "-T", "imported", "-i", folder + "/payload", "-o", folder + "/payload.sig"], home: home)
            #expect(rsaSigned.status == 0, "\(rsaSigned.standardError)")
            #expect(signed.status != 0, "an ECDSA algorithm with an RSA key fails")
        } else {
            #expect(signed.status == 0, "\(signed.standardError)")
        }
        let verified = try runOpenSSL(
            ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "payload.sig", "payload"], in: folder)
        #expect(verified.status == 0, "\(verified.standardOutput) \(verified.standardError)")
        let again = try ClavisBinary.run(["import", folder + "/key.pem", "-T", "imported"], home: home)
        #expect(again.status == 45, "errSecDuplicateItem's exit status: \(again.standardError)")
    }

    @Test func exportedPublicKeysAreTheOnesImportedAndGenerated() throws {
        let (folder, home) = try freshFolder()
        #expect(
            try runOpenSSL(
                ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521", "-out", "k.pem"],
                in: folder
            ).status == 0)
        #expect(try runOpenSSL(["pkey", "-in", "k.pem", "-pubout", "-out", "theirs.pem"], in: folder).status == 0)
        #expect(try ClavisBinary.run(["import", folder + "/theirs.pem", "-T", "theirs"], home: home).status == 0)
        let generated = try ClavisBinary.run(["generate-key", "-T", "ours", "-o", folder + "/ours.pem"], home: home)
        #expect(generated.status == 0)
        let exported = try ClavisBinary.run(["export", "-t", "pubkeys", "-o", folder + "/all.pem"], home: home)
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(exported.standardOutput.contains("exported 2 public keys"), "\(exported.standardOutput)")
        let all = try String(contentsOfFile: folder + "/all.pem", encoding: .utf8)
        for name in ["theirs.pem", "ours.pem"] {
            let der = try runOpenSSL(
                ["pkey", "-pubin", "-in", name, "-outform", "DER", "-out", name + ".der"], in: folder)
            #expect(der.status == 0)
            let block = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            let body = block.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            #expect(all.replacingOccurrences(of: "\n", with: "").contains(body), "\(name) is among the exported keys")
        }
        let certificates = try ClavisBinary.run(["export", "-t", "certs", "-o", folder + "/certs.pem"], home: home)
        #expect(certificates.status == 44, "no certificate stored: errSecItemNotFound")
    }

    @Test func aKeyAndCertificateBundleImportsWholeOrNotAtAll() throws {
        let (folder, home) = try freshFolder()
        #expect(
            try runOpenSSL(
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    "key.pem", "-subj", "/CN=bundle.clavis.test/emailAddress=ops@clavis.test", "-days", "30", "-out",
                    "cert.pem",
                ], in: folder
            ).status == 0)
        let bundle =
            try String(contentsOfFile: folder + "/key.pem", encoding: .utf8)
            + "Bag Attributes: text between blocks is passed over\n"
            + (try String(contentsOfFile: folder + "/cert.pem", encoding: .utf8))
        try ("Preamble\n" + bundle).write(toFile: folder + "/bundle.pem", atomically: true, encoding: .utf8)
        // A bundle whose last block is broken adds nothing.
        try (bundle + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").write(
            toFile: folder + "/broken.pem", atomically: true, encoding: .utf8)
        #expect(try ClavisBinary.run(["import", folder + "/broken.pem", "-T", "bundle"], home: home).status != 0)
        #expect(try ClavisBinary.run(["dump-keychain"], home: home).standardOutput.isEmpty, "nothing was added")

        let imported = try ClavisBinary.run(["import", folder + "/bundle.pem", "-T", "bundle"], home: home)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("imported 3 items"), "\(imported.standardOutput)")
        let found = try ClavisBinary.run(["find-certificate", "-c", "bundle.clavis", "-p", "-m", "-Z"], home: home)
        #expect(found.status == 0, "\(found.standardError)")
        #expect(found.standardOutput.contains("email: ops@clavis.test"))
        let pem = try String(contentsOfFile: folder + "/cert.pem", encoding: .utf8)
        #expect(found.standardOutput.contains(pem.trimmingCharacters(in: .newlines)))
        let fingerprint = try runOpenSSL(["x509", "-in", "cert.pem", "-noout", "-fingerprint", "-sha256"], in: folder)
        let hex = fingerprint.standardOutput.split(separator: "=").last.map {
            $0.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(found.standardOutput.contains("SHA-256 hash: \(hex ?? "?")"), "\(found.standardOutput)")
        let exported = try ClavisBinary.run(["export", "-t", "certs", "-o", folder + "/out.pem"], home: home)
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(try String(contentsOfFile: folder + "/out.pem", encoding: .utf8) == pem)
        #expect(try ClavisBinary.run(["find-certificate", "-e", "nobody@clavis.test"], home: home).status == 44)
    }

    @Test func aPublicKeyAloneVerifiesWithoutItsPrivateKey() throws {
        let (folder, home) = try freshFolder()
        #expect(
            try runOpenSSL(
                ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "k.pem"],
                in: folder
            ).status == 0)
        #expect(
            try runOpenSSL(["pkey", "-in", "k.pem", "-pubout", "-outform", "DER", "-out", "pub.der"], in: folder).status
                == 0)
        try Data("signed elsewhere".utf8).write(to: URL(fileURLWithPath: folder + "/m"))
        #expect(try runOpenSSL(["dgst", "-sha256", "-sign", "k.pem", "-out", "m.sig", "m"], in: folder).status == 0)
        let imported = try ClavisBinary.run(["import", folder + "/pub.der", "-T", "partner"], home: home)
        #expect(imported.status == 0, "a DER public key: \(imported.standardError)")
        let verified = try ClavisBinary.run(
            ["verify", "-T", "partner", "-i", folder + "/m", "-s", folder + "/m.sig"], home: home)
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(try ClavisBinary.run(["sign", "-T", "partner", "-i", folder + "/m"], home: home).status == 44)
    }

    @Test func aPKCS12ArchiveImportsItsIdentityWhichFindIdentityLists() throws {
        let (folder, home) = try freshFolder()
        #expect(
            try runOpenSSL(
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "id.key", "-subj",
                    "/CN=Archive Identity",
                    "-days", "30", "-out", "id.crt",
                ], in: folder
            ).status == 0)
        #expect(
            try runOpenSSL(
                [
                    "pkcs12", "-export", "-inkey", "id.key", "-in", "id.crt", "-passout", "pass:p12-pass", "-out",
                    "id.p12",
                ],
                in: folder
            ).status == 0)
        let wrong = try ClavisBinary.run(["import", folder + "/id.p12", "-P", "nope"], home: home)
        #expect(wrong.status == 51, "errSecAuthFailed: \(wrong.standardError)")
        #expect(try ClavisBinary.run(["dump-keychain"], home: home).standardOutput.isEmpty)
        let imported = try ClavisBinary.run(["import", folder + "/id.p12", "-P", "p12-pass"], home: home)
        #expect(imported.status == 0, "\(imported.standardError)")
        let listed = try ClavisBinary.run(["find-identity"], home: home)
        #expect(listed.status == 0, "\(listed.standardError)")
        let fingerprint = try runOpenSSL(["x509", "-in", "id.crt", "-noout", "-fingerprint", "-sha1"], in: folder)
        let sha1 = fingerprint.standardOutput.split(separator: "=").last.map {
            $0.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(listed.standardOutput.contains("1) \(sha1 ?? "?") \"Archive Identity\""), "\(listed.standardOutput)")
        #expect(listed.standardOutput.contains("1 identities found"))
        // Self-signed and anchored nowhere the system trusts: not valid.
        #expect(listed.standardOutput.contains("0 valid identities found"))
        let json = try ClavisBinary.run(["--json", "find-identity"], home: home)
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(entries.count == 1 && entries.first?["valid"] as? Bool == false)
    }

    @Test func aFileThatIsNeitherABackupNorAKeyIsRefused() throws {
        let (folder, home) = try freshFolder()
        try "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".write(
            toFile: folder + "/bad.pem", atomically: true, encoding: .utf8)
        let bad = try ClavisBinary.run(["import", folder + "/bad.pem"], home: home)
        #expect(bad.status != 0 && !bad.standardError.isEmpty)
        #expect(
            try runOpenSSL(
                [
                    "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:x",
                    "-out", "locked.pem",
                ], in: folder
            ).status == 0)
        let locked = try ClavisBinary.run(["import", folder + "/locked.pem"], home: home)
        #expect(locked.status != 0)
        #expect(locked.standardError.contains("ENCRYPTED PRIVATE KEY"), "\(locked.standardError)")
    }

    @Test func namingNoKeyOrAnUnknownAlgorithmIsAUsageError() throws {
        let (folder, home) = try freshFolder()
        #expect(try ClavisBinary.run(["generate-key", "-t", "dsa", "-T", "x"], home: home).status == 2)
        #expect(try ClavisBinary.run(["generate-key"], home: home).status == 2)
        #expect(try ClavisBinary.run(["sign", "-i", folder + "/nothing"], home: home).status == 2)
        #expect(try ClavisBinary.run(["sign", "-T", "x", "-a", "md5", "-i", "f"], home: home).status == 2)
        let missing = try ClavisBinary.run(["sign", "-T", "absent", "-i", "/etc/hostname"], home: home)
        #expect(missing.status == 44, "errSecItemNotFound's exit status: \(missing.standardError)")
        // An existing file is never overwritten, and no key is left behind.
        try "keep".write(toFile: folder + "/existing.pem", atomically: true, encoding: .utf8)
        let existing = try ClavisBinary.run(["generate-key", "-T", "kept", "-o", folder + "/existing.pem"], home: home)
        #expect(existing.status != 0)
        #expect(try String(contentsOfFile: folder + "/existing.pem", encoding: .utf8) == "keep")
        #expect(try ClavisBinary.run(["dump-keychain"], home: home).standardOutput.isEmpty)
        let size = try ClavisBinary.run(["generate-key", "-t", "ec", "-s", "300", "-T", "bad"], home: home)
        #expect(size.status != 0 && size.status != 2, "a size the key type lacks fails the call")
    }
}
