internal import COpenSSL
public import ClavisCore

/// Parameters of the memory-hard passcode KDF; Codable so the store records them with its keybag.
public struct PasscodeKDF: Codable, Sendable, Hashable {
    /// The derivation function the parameters describe.
    public enum Algorithm: String, Codable, Sendable {
        /// scrypt (RFC 7914), memory-hard; the default.
        case scrypt
        /// PBKDF2 with HMAC-SHA256 (RFC 8018), for interoperability only.
        case pbkdf2SHA256 = "pbkdf2-sha256"
    }

    /// The length of every derived key in bytes.
    public static let derivedKeyByteCount = 32
    /// The salt length `calibrated` and `cheapForTesting` choose.
    public static let saltByteCount = 16
    /// The most memory one scrypt derivation may claim (8 GiB), so a corrupted record cannot exhaust the machine.
    public static let maximumScryptMemoryBytes = 1 << 33

    /// Which function derives the key.
    public var algorithm: Algorithm
    /// scrypt: N = 1 << costLog2; pbkdf2: unused (0).
    public var costLog2: Int
    /// scrypt block size r (8).
    public var blockSize: Int
    /// scrypt parallelism p (1).
    public var parallelism: Int
    /// PBKDF2 iterations (0 for scrypt).
    public var iterations: Int
    /// The random salt (16 bytes).
    public var salt: [UInt8]

    /// Creates parameters as recorded; nothing is checked until `deriveKey(from:)`.
    public init(algorithm: Algorithm, costLog2: Int, blockSize: Int, parallelism: Int, iterations: Int, salt: [UInt8]) {
        self.algorithm = algorithm
        self.costLog2 = costLog2
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.iterations = iterations
        self.salt = salt
    }

    /// A deliberately cheap setting for tests only (scrypt N = 2^10, r 8, p 1): never the default; the keychain
    /// records it like any other.
    public static func cheapForTesting() -> PasscodeKDF {
        scrypt(costLog2: 10)
    }

    /// scrypt with r 8, p 1, the given cost and a fresh random salt.
    static func scrypt(costLog2: Int) -> PasscodeKDF {
        PasscodeKDF(
            algorithm: .scrypt, costLog2: costLog2, blockSize: 8, parallelism: 1, iterations: 0,
            salt: SecureRandom.bytes(count: saltByteCount))
    }

    /// Derives a 32-byte key from the passcode bytes; throws on bad parameters (they are read from disk) rather
    /// than trapping.
    public func deriveKey(from passcode: SecureBytes) throws(CryptoError) -> SecureBytes {
        guard !salt.isEmpty else { throw .invalidInput("passcode KDF salt must not be empty") }
        switch algorithm {
        case .scrypt: return try deriveWithScrypt(passcode)
        case .pbkdf2SHA256: return try deriveWithPBKDF2(passcode)
        }
    }

    private func deriveWithScrypt(_ passcode: SecureBytes) throws(CryptoError) -> SecureBytes {
        guard (1...22).contains(costLog2) else {
            throw .invalidInput("scrypt costLog2 must be 1...22, got \(costLog2)")
        }
        guard (1...1024).contains(blockSize) else { throw .invalidInput("scrypt r must be 1...1024, got \(blockSize)") }
        guard (1...1024).contains(parallelism) else {
            throw .invalidInput("scrypt p must be 1...1024, got \(parallelism)")
        }
        // RFC 7914 requires N < 2^(128 r / 8).
        guard costLog2 < 16 * blockSize else { throw .invalidInput("scrypt N too large for r = \(blockSize)") }
        let cost = 1 << costLog2
        // OpenSSL needs 128 r (N + 2) bytes for V plus 128 r p for B; with the bounds above this cannot overflow.
        let memory = 128 * blockSize * (cost + 2) + 128 * blockSize * parallelism
        guard memory <= Self.maximumScryptMemoryBytes else {
            throw .invalidInput(
                "scrypt parameters need \(memory) bytes, over the \(Self.maximumScryptMemoryBytes) limit")
        }
        return try SecureBytes.filling(count: Self.derivedKeyByteCount) { output throws(CryptoError) in
            try passcode.withBytes { passPointer, passCount throws(CryptoError) in
                try salt.withBytes { saltPointer, saltCount throws(CryptoError) in
                    let status = passPointer.withMemoryRebound(to: CChar.self, capacity: Swift.max(passCount, 1)) {
                        EVP_PBE_scrypt(
                            $0, passCount, saltPointer, saltCount, UInt64(cost), UInt64(blockSize), UInt64(parallelism),
                            UInt64(memory + 4096), output, Self.derivedKeyByteCount)
                    }
                    try OpenSSLStatus.check(status, "EVP_PBE_scrypt")
                }
            }
        }
    }

    private func deriveWithPBKDF2(_ passcode: SecureBytes) throws(CryptoError) -> SecureBytes {
        guard iterations >= 1, let rounds = Int32(exactly: iterations) else {
            throw .invalidInput("PBKDF2 iterations must be 1...\(Int32.max), got \(iterations)")
        }
        guard let saltLength = Int32(exactly: salt.count), let passLength = Int32(exactly: passcode.count) else {
            throw .invalidInput("PBKDF2 passcode or salt too long")
        }
        return try SecureBytes.filling(count: Self.derivedKeyByteCount) { output throws(CryptoError) in
            try passcode.withBytes { passPointer, _ throws(CryptoError) in
                try salt.withBytes { saltPointer, _ throws(CryptoError) in
                    let status = passPointer.withMemoryRebound(to: CChar.self, capacity: Swift.max(Int(passLength), 1))
                    {
                        PKCS5_PBKDF2_HMAC(
                            $0, passLength, saltPointer, saltLength, rounds, EVP_sha256(),
                            Int32(Self.derivedKeyByteCount), output)
                    }
                    try OpenSSLStatus.check(status, "PKCS5_PBKDF2_HMAC")
                }
            }
        }
    }
}
