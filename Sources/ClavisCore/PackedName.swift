/// The UTF-8 bytes of a short name in one integer, first byte highest, zero-padded: comparing or hashing it costs a
/// few instructions where a `String`'s costs dozens, and integers order as the names' bytes do.
public struct PackedName: Hashable, Comparable, Sendable {
    /// The packed bytes.
    public let bits: UInt64

    /// Packs `name` when it is one to eight ASCII bytes, none of them zero; nil otherwise.
    ///
    /// Two packed names are equal as `String`s exactly when their bits are. A packed name may still equal, as a
    /// `String`, a name that is not packed: a `K`, `;` or `` ` `` is also equal to the non-ASCII character that
    /// decomposes to it (no keychain name holds one).
    public init?(_ name: String) {
        var name = name
        guard let bits = name.withUTF8(Self.packed) else { return nil }
        self.bits = bits
    }

    private static func packed(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard (1...8).contains(bytes.count), bytes.allSatisfy({ $0 != 0 && $0 < 0x80 }) else { return nil }
        return firstEight(bytes)
    }

    /// The first eight UTF-8 bytes of any name: equal for equal names, and for different names that begin alike.
    public init(prefixOf name: String) {
        var name = name
        bits = name.withUTF8(Self.firstEight)
    }

    /// Up to eight bytes, first byte highest, zero-padded.
    private static func firstEight(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var bits: UInt64 = 0
        for index in 0..<8 {
            bits = bits << 8 | UInt64(index < bytes.count ? bytes[index] : 0)
        }
        return bits
    }

    /// Orders as the names' bytes do.
    public static func < (lhs: PackedName, rhs: PackedName) -> Bool { lhs.bits < rhs.bits }
}
