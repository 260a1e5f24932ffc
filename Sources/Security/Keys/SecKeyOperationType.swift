/// The kinds of operation `SecKeyIsAlgorithmSupported` asks about, with Apple's values.
public enum SecKeyOperationType: Int, Sendable {
    /// `SecKeyCreateSignature`.
    case sign = 0
    /// `SecKeyVerifySignature`.
    case verify = 1
    /// `SecKeyCreateEncryptedData`.
    case encrypt = 2
    /// `SecKeyCreateDecryptedData`.
    case decrypt = 3
    /// `SecKeyCopyKeyExchangeResult`.
    case keyExchange = 4
}
