/// The NIST prime curves Apple's `kSecAttrKeyTypeECSECPrimeRandom` keys use.
public enum EllipticCurve: Int, Sendable, CaseIterable {
    /// P-256 (secp256r1).
    case p256 = 256
    /// P-384 (secp384r1).
    case p384 = 384
    /// P-521 (secp521r1).
    case p521 = 521

    /// The curve's size in bits, as Apple's `kSecAttrKeySizeInBits` gives it.
    public var bitCount: Int { rawValue }

    /// The length of one coordinate (and of a private scalar) in bytes.
    public var coordinateByteCount: Int { (rawValue + 7) / 8 }

    /// The length of an uncompressed point `04 ‖ X ‖ Y`.
    public var pointByteCount: Int { 1 + 2 * coordinateByteCount }

    /// OpenSSL's group name.
    var groupName: String {
        switch self {
        case .p256: "P-256"
        case .p384: "P-384"
        case .p521: "P-521"
        }
    }

    /// The curve whose uncompressed points are `count` bytes long, if any.
    init?(pointByteCount count: Int) {
        guard let curve = Self.allCases.first(where: { $0.pointByteCount == count }) else { return nil }
        self = curve
    }
}
