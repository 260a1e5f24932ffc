extension SecureBytes: Hashable {
    /// True when both hold the same bytes; compared in time that depends only on the lengths.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                var difference: UInt8 = 0
                for index in 0..<left.count { difference |= left[index] ^ right[index] }
                return difference == 0
            }
        }
    }

    /// Hashes the length only, so no hash value ever depends on the contents.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
    }
}
