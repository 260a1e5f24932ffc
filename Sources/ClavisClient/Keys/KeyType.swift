public import ClavisCrypto

/// An asymmetric key's type (`kSecAttrKeyType`, `type`) as Apple's numeric code: the two kinds of key Clavis makes.
public enum KeyType: Int64, Sendable, CaseIterable {
    /// `kSecAttrKeyTypeRSA`.
    case rsa = 42
    /// `kSecAttrKeyTypeECSECPrimeRandom`.
    case ellipticCurve = 73

    /// Apple's older ECDSA code (`kSecAttrKeyTypeEC`), which reads as EC.
    public static let legacyEllipticCurveCode: Int64 = 43

    /// The type a stored or given code names (43 reads as EC); nil for any other code.
    public init?(code: Int64) {
        self.init(rawValue: code == Self.legacyEllipticCurveCode ? Self.ellipticCurve.rawValue : code)
    }

    /// The type of `key`.
    public init(of key: AsymmetricKey) {
        switch key.kind {
        case .rsa: self = .rsa
        case .ellipticCurve: self = .ellipticCurve
        }
    }
}
