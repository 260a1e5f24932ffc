import ClavisCore
import ClavisCrypto
import FoundationEssentials
import Testing

@Suite struct PasscodeKDFTests {
    let passcode = SecureBytes(utf8("123456"))

    @Test func scryptMatchesRFC7914VectorPrefix() throws {
        // RFC 7914 §12: "password", "NaCl", N = 1024, r = 8, p = 16. The published 64-byte output starts with
        // these 32 bytes, which is what a 32-byte derivation yields (scrypt ends in PBKDF2, whose blocks are
        // independent).
        let kdf = PasscodeKDF(
            algorithm: .scrypt, costLog2: 10, blockSize: 8, parallelism: 16, iterations: 0, salt: utf8("NaCl"))
        let key = try kdf.deriveKey(from: SecureBytes(utf8("password")))
        #expect(key.unprotectedBytes() == hex("fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"))
    }

    @Test func pbkdf2MatchesPublishedSHA256Vector() throws {
        let kdf = PasscodeKDF(
            algorithm: .pbkdf2SHA256, costLog2: 0, blockSize: 0, parallelism: 0, iterations: 1, salt: utf8("salt"))
        let key = try kdf.deriveKey(from: SecureBytes(utf8("password")))
        #expect(key.unprotectedBytes() == hex("120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"))
    }

    @Test func cheapSettingDerivesTheSameKeyAfterACodableRoundTrip() throws {
        let kdf = PasscodeKDF.cheapForTesting()
        #expect(kdf.algorithm == .scrypt && kdf.costLog2 == 10 && kdf.blockSize == 8 && kdf.parallelism == 1)
        #expect(kdf.salt.count == 16)
        let restored = try JSONDecoder().decode(PasscodeKDF.self, from: JSONEncoder().encode(kdf))
        #expect(restored == kdf)
        let first = try kdf.deriveKey(from: passcode)
        let second = try restored.deriveKey(from: passcode)
        #expect(first.count == 32)
        #expect(ConstantTime.equals(first, second))
        #expect(!ConstantTime.equals(first, try kdf.deriveKey(from: SecureBytes(utf8("123457")))))
    }

    @Test func algorithmIsRecordedByItsStableName() throws {
        let json = try JSONEncoder().encode(PasscodeKDF.Algorithm.pbkdf2SHA256)
        #expect(String(decoding: json, as: UTF8.self) == "\"pbkdf2-sha256\"")
    }

    @Test func freshSettingsGetFreshSalts() {
        #expect(PasscodeKDF.cheapForTesting().salt != PasscodeKDF.cheapForTesting().salt)
    }

    @Test func calibratedSettingIsStrongerThanTheCheapOne() throws {
        let calibrated = PasscodeKDF.calibrated(targetSeconds: 0.05)
        let cheap = PasscodeKDF.cheapForTesting()
        #expect(calibrated != cheap)
        #expect(calibrated.algorithm == .scrypt)
        #expect(PasscodeKDF.calibratedCostLog2Range.contains(calibrated.costLog2))
        #expect(calibrated.costLog2 > cheap.costLog2)
        #expect(calibrated.salt.count == 16 && calibrated.salt != cheap.salt)
        #expect(try calibrated.deriveKey(from: passcode).count == 32)
    }

    static let badParameters: [PasscodeKDF] = [
        PasscodeKDF(algorithm: .scrypt, costLog2: 0, blockSize: 8, parallelism: 1, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 23, blockSize: 8, parallelism: 1, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 64, blockSize: 8, parallelism: 1, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 10, blockSize: 0, parallelism: 1, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 10, blockSize: 8, parallelism: 0, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 10, blockSize: -3, parallelism: 1, iterations: 0, salt: [1]),
        PasscodeKDF(
            algorithm: .scrypt, costLog2: 10, blockSize: Int.max, parallelism: Int.max, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 16, blockSize: 1, parallelism: 1, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 22, blockSize: 1024, parallelism: 1, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .scrypt, costLog2: 10, blockSize: 8, parallelism: 1, iterations: 0, salt: []),
        PasscodeKDF(algorithm: .pbkdf2SHA256, costLog2: 0, blockSize: 0, parallelism: 0, iterations: 1000, salt: []),
        PasscodeKDF(algorithm: .pbkdf2SHA256, costLog2: 0, blockSize: 0, parallelism: 0, iterations: 0, salt: [1]),
        PasscodeKDF(algorithm: .pbkdf2SHA256, costLog2: 0, blockSize: 0, parallelism: 0, iterations: -5, salt: [1]),
        PasscodeKDF(
            algorithm: .pbkdf2SHA256, costLog2: 0, blockSize: 0, parallelism: 0, iterations: Int.max, salt: [1]),
    ]

    @Test(arguments: badParameters)
    func deriveKeyThrowsInsteadOfTrappingOnBadParameters(_ kdf: PasscodeKDF) {
        #expect(throws: CryptoError.self) { try kdf.deriveKey(from: passcode) }
    }
}
