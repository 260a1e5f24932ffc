import ClavisTestSupport
import Foundation
import Security
import Testing

/// `SecPKCS12Import` of archives `openssl pkcs12 -export` made, written as against Apple's framework.
@Suite(.preparedKeychain) struct PKCS12ImportTests {
    private let message = Data("a message the imported key signs".utf8)

    @Test(arguments: [TestArchives.LeafKey.rsa, .ec])
    func anArchiveImportsItsIdentityChainLabelKeyIDAndTrust(_ key: TestArchives.LeafKey) throws {
        let archive = try testArchives().archive(key, name: "Clavis \(key.rawValue) leaf")
        let (status, items) = importArchive(archive.data, passphrase: "secret")
        #expect(status == errSecSuccess)
        let item = try #require(items?.first)
        #expect(items?.count == 1)
        let identity = try #require(item[kSecImportItemIdentity as String].map { $0 as! SecIdentity })
        #expect(CFGetTypeID(identity) == SecIdentityGetTypeID())
        var certificate: SecCertificate?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        #expect(certificate.map { SecCertificateCopyData($0) as Data } == archive.leaf)
        let chain = try #require(item[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(chain.map { SecCertificateCopyData($0) as Data } == [archive.leaf, archive.intermediate, archive.root])
        #expect(item[kSecImportItemLabel as String] as? String == archive.name)
        // openssl names the key and its certificate by the certificate's SHA-1.
        #expect((item[kSecImportItemKeyID as String] as? Data)?.count == 20)
        let trust = try #require(item[kSecImportItemTrust as String].map { $0 as! SecTrust })
        let root = try #require(SecCertificateCreateWithData(nil, archive.root as CFData))
        #expect(SecTrustSetAnchorCertificates(trust, [root] as CFArray) == errSecSuccess)
        var error: CFError?
        #expect(SecTrustEvaluateWithError(trust, &error))
        #expect(error == nil)
    }

    @Test(arguments: [
        (TestArchives.LeafKey.rsa, SecKeyAlgorithm.rsaSignatureMessagePSSSHA256),
        (.ec, .ecdsaSignatureMessageX962SHA256),
    ])
    func theImportedKeySignsAndTheCertificatesKeyVerifies(_ key: TestArchives.LeafKey, _ algorithm: SecKeyAlgorithm)
        throws
    {
        let archive = try testArchives().archive(key)
        let identity = try importedIdentity(archive)
        var privateKey: SecKey?
        #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
        let (signature, signError) = sign(try #require(privateKey), algorithm, message)
        #expect(signError == nil)
        var certificate: SecCertificate?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        let leaf = try #require(certificate)
        let publicKey = try #require(SecCertificateCopyKey(leaf))
        let (valid, _) = verify(publicKey, algorithm, message, try #require(signature))
        #expect(valid)
        let (tampered, _) = verify(publicKey, algorithm, message + Data([0]), try #require(signature))
        #expect(!tampered)
        // The openssl command line, given the certificate openssl made, agrees.
        let made = try #require(signature)
        #expect(try testArchives().opensslVerifies(made, of: message, leaf: archive.leaf, pss: key == .rsa))
        #expect(
            !(try testArchives().opensslVerifies(made, of: message + Data([0]), leaf: archive.leaf, pss: key == .rsa)))
    }

    @Test func anEmptyPassphraseOpensAnArchiveMadeWithoutOne() throws {
        let archive = try testArchives().archive(.ec, passphrase: "")
        #expect(importArchive(archive.data, passphrase: "").status == errSecSuccess)
        #expect(importArchive(archive.data, passphrase: "secret").status == errSecAuthFailed)
    }

    @Test func aWrongPassphraseIsAuthFailedAndBytesThatAreNoArchiveAreDecode() throws {
        let archive = try testArchives().archive(.rsa)
        for wrong in ["", "Secret", "secret ", String(repeating: "x", count: 500)] {
            let (status, items) = importArchive(archive.data, passphrase: wrong)
            #expect(status == errSecAuthFailed, "\(wrong.prefix(10))")
            #expect(items == nil)
        }
        #expect(importArchive(archive.data, passphrase: nil).status == errSecParam)
        for bytes in [Data(), Data("not an archive".utf8), archive.leaf, archive.data.prefix(archive.data.count / 2)] {
            let (status, items) = importArchive(bytes, passphrase: "secret")
            #expect(status == errSecDecode)
            #expect(items == nil)
        }
    }

    @Test func mutatedArchivesAnswerAStatusAndNeverCrash() throws {
        let archive = try testArchives().archive(.ec)
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        func next() -> UInt64 {
            // SplitMix64: the same mutations every run.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let original = [UInt8](archive.data)
        var statuses: [OSStatus: Int] = [:]
        for round in 0..<400 {
            var bytes = original
            switch round % 4 {
            case 0: bytes[Int(next() % UInt64(bytes.count))] ^= UInt8(1 << (next() % 8))
            case 1: bytes = Array(bytes.prefix(Int(next() % UInt64(bytes.count))))
            case 2: bytes[Int(next() % 64)] = UInt8(truncatingIfNeeded: next())
            default: bytes += (0..<Int(next() % 8 + 1)).map { _ in UInt8(truncatingIfNeeded: next()) }
            }
            let (status, items) = importArchive(Data(bytes), passphrase: "secret")
            #expect([errSecSuccess, errSecAuthFailed, errSecDecode].contains(status), "round \(round)")
            #expect((status == errSecSuccess) == (items != nil), "round \(round)")
            statuses[status, default: 0] += 1
        }
        // The mutations reach both the DER parser and the MAC.
        #expect(statuses[errSecDecode, default: 0] > 0)
        #expect(statuses[errSecAuthFailed, default: 0] > 0)
    }
}
