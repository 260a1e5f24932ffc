internal import COpenSSL
public import ClavisCore

/// Random bytes from OpenSSL's cryptographically secure generator.
public enum SecureRandom {
    /// Random bytes from OpenSSL's CSPRNG (RAND_bytes); traps only if the CSPRNG itself fails.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes count must not be negative")
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { fill($0) }
        return result
    }

    /// Random bytes directly inside a zeroing container (for keys).
    public static func secureBytes(count: Int) -> SecureBytes {
        precondition(count >= 0, "SecureRandom.secureBytes count must not be negative")
        return SecureBytes(count: count) { fill($0) }
    }

    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard var next = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let chunk = Swift.min(remaining, Int(Int32.max))
            // A failing CSPRNG leaves no safe way to continue: every key and nonce would be suspect.
            guard RAND_bytes(next, Int32(chunk)) == 1 else { fatalError("RAND_bytes failed: the CSPRNG is unusable") }
            next += chunk
            remaining -= chunk
        }
    }
}
