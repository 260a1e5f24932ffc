import ClavisClient
import ClavisCrypto

/// What a `SecKeyAlgorithm` asks for: the native `KeyAlgorithm` its name stands for.
extension KeyAlgorithm {
    /// The plan for `algorithm`, or nil for a name Clavis does not know.
    init?(_ algorithm: SecKeyAlgorithm) {
        self.init(name: algorithm.rawValue as String)
    }

    /// True when `key` can run this plan for `operation` (Apple's `SecKeyIsAlgorithmSupported`); `isPrivate`
    /// says whether the key is private (a token-held key is, though only its public key is here).
    func supports(_ operation: SecKeyOperationType, with key: AsymmetricKey, isPrivate: Bool) -> Bool {
        supports(operation.keyOperation, with: key, isPrivate: isPrivate)
    }
}

extension SecKeyOperationType {
    /// The native operation of the same name.
    var keyOperation: KeyOperation {
        switch self {
        case .sign: .sign
        case .verify: .verify
        case .encrypt: .encrypt
        case .decrypt: .decrypt
        case .keyExchange: .keyExchange
        }
    }
}
