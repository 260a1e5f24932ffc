internal import COpenSSL
public import ClavisCore

/// Comparisons whose running time does not reveal where two byte strings differ.
public enum ConstantTime {
    /// Compares in time independent of where the bytes differ (CRYPTO_memcmp); false when lengths differ.
    public static func equals(_ lhs: SecureBytes, _ rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in compare(left, right) } }
    }

    /// Compares in time independent of where the bytes differ (CRYPTO_memcmp); false when lengths differ.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in compare(left, right) } }
    }

    private static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress else {
            return left.count == right.count
        }
        return CRYPTO_memcmp(leftBase, rightBase, left.count) == 0
    }
}
