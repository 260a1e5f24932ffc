import ClavisCore
import ClavisCrypto

/// Computes the ECDH shared secret of a private key and a public key on the same curve; the X9.63 variants run
/// it through the X9.63 KDF with `kSecKeyKeyExchangeParameterRequestedSize` (required) bytes of output and
/// `kSecKeyKeyExchangeParameterSharedInfo` (optional).
///
/// Returns nil with `errSecParam` when the key cannot run the algorithm, for a public key on another curve, and
/// for missing or bad parameters.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard case .keyExchange(let kdf) = supportedPlan(privateKey, .keyExchange, algorithm, errorOut) else { return nil }
    var given: [String: Any] = [:]
    for case (let name as String, let value) in parameters { given[name] = value }
    let requested = (given[kSecKeyKeyExchangeParameterRequestedSize as String] as? NSNumber)?.intValue
    let sharedInfo = given[kSecKeyKeyExchangeParameterSharedInfo as String]
    if kdf != nil {
        guard let requested, requested > 0, requested <= 1 << 20 else {
            reportKeyError(errorOut, .param, "kSecKeyKeyExchangeParameterRequestedSize is missing or out of range")
            return nil
        }
        guard sharedInfo == nil || sharedInfo is NSData else {
            reportKeyError(errorOut, .param, "kSecKeyKeyExchangeParameterSharedInfo must be data")
            return nil
        }
    }
    guard !publicKey.key.isPrivate, publicKey.key.kind == privateKey.key.kind else {
        reportKeyError(errorOut, .param, "the public key is not on the private key's curve")
        return nil
    }
    do throws(CryptoError) {
        var secret: SecureBytes
        if let token = privateKey.token {
            let point = try publicKey.key.publicRepresentation()
            do throws(KeychainError) {
                secret = try token.run(.agree(peerPublicKey: point))
            } catch {
                reportKeyError(errorOut, error)
                return nil
            }
        } else {
            secret = try privateKey.key.sharedSecret(with: publicKey.key, cofactor: false)
        }
        if let kdf, let requested {
            secret = try X963KDF.deriveKey(
                from: secret, sharedInfo: (sharedInfo as? NSData)?.byteArray ?? [], digest: kdf,
                outputByteCount: requested)
        }
        // The caller asked for the shared secret: it leaves the zeroing buffer only here, into the CFData.
        return secret.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    } catch {
        reportKeyError(errorOut, .param, "\(algorithm.rawValue): key exchange failed")
        return nil
    }
}
