internal import COpenSSL
public import ClavisCore

/// Random bytes from OpenSSL's cryptographically secure generator.
public enum SecureRandom {
    /// Random bytes from OpenSSL's CSPRNG (RAND_bytes); traps only if the CSPRNG itself fails.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes count must not be negative")
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBytes { fillOrTrap($0) }
        return result
    }

    /// Random bytes directly inside a zeroing container (for keys).
    public static func secureBytes(count: Int) -> SecureBytes {
        precondition(count >= 0, "SecureRandom.secureBytes count must not be negative")
        return SecureBytes(count: count) { fillOrTrap($0) }
    }

    /// Fills `buffer` from OpenSSL's CSPRNG; false (and the buffer unusable) if the CSPRNG fails, which callers
    /// that hand the bytes to others report rather than trap on.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard var next = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var remaining = buffer.count
        while remaining > 0 {
            let chunk = Swift.min(remaining, Int(Int32.max))
            guard RAND_bytes(next, Int32(chunk)) == 1 else { return false }
            next += chunk
            remaining -= chunk
        }
        return true
    }

    private static func fillOrTrap(_ buffer: UnsafeMutableRawBufferPointer) {
        // A failing CSPRNG leaves no safe way to continue: every key and nonce would be suspect.
        guard fill(buffer) else { fatalError("RAND_bytes failed: the CSPRNG is unusable") }
    }
}
