/// A key of `SecKeyCopyKeyExchangeResult`'s parameters, as Apple's Swift overlay names them (`CF_STRING_ENUM`):
/// `SecKeyKeyExchangeParameter.requestedSize.rawValue` is `kSecKeyKeyExchangeParameterRequestedSize`.
// Sendable by hand: it wraps an immutable string.
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, @unchecked Sendable {
    /// Apple's name of the parameter.
    public let rawValue: CFString

    /// Wraps Apple's name of a parameter.
    public init(rawValue: CFString) { self.rawValue = rawValue }
}

extension SecKeyKeyExchangeParameter {
    /// How many bytes the X9.63 key derivation makes (`kSecKeyKeyExchangeParameterRequestedSize`).
    public static let requestedSize = SecKeyKeyExchangeParameter(rawValue: kSecKeyKeyExchangeParameterRequestedSize)
    /// The shared information the X9.63 key derivation mixes in (`kSecKeyKeyExchangeParameterSharedInfo`).
    public static let sharedInfo = SecKeyKeyExchangeParameter(rawValue: kSecKeyKeyExchangeParameterSharedInfo)
}
