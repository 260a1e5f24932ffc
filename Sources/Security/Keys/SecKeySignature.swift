import ClavisClient
import ClavisCore

/// Signs `dataToSign` (a message or a digest, as `algorithm` says) with a private key.
///
/// Returns nil with `errSecParam`, as Apple does, both when the key cannot run the algorithm (a public key, the
/// other key type) and for input the algorithm refuses (a digest of the wrong length, a raw RSA block that is not
/// the modulus' length or not below it).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard case .signature(let scheme) = supportedPlan(key, .sign, algorithm, errorOut) else { return nil }
    do throws(KeychainError) {
        let name = algorithm.rawValue as String
        guard let token = key.token else {
            return Data(try KeySignature.sign(dataToSign.byteArray, with: key.key, scheme: scheme, algorithmName: name))
                as NSData
        }
        // The keychain service signs with the key it holds; the digest is all it sees.
        let signature = try KeySignature.sign(dataToSign.byteArray, with: key.key, scheme: scheme, algorithmName: name)
        {
            (digest) throws(KeychainError) in try token.run(.signDigest(digest))
        }
        return Data(signature) as NSData
    } catch {
        reportKeyError(errorOut, error)
        return nil
    }
}

/// Checks `signature` over `signedData` with a public key: true when it verifies; false with
/// `errSecVerifyFailed` when it does not (malformed signatures included), `errSecParam` when the key
/// cannot run the algorithm, `errSecParam` for input the algorithm refuses.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    guard case .signature(let scheme) = supportedPlan(key, .verify, algorithm, errorOut) else { return false }
    do throws(KeychainError) {
        try KeySignature.verify(
            signature.byteArray, over: signedData.byteArray, with: key.key, scheme: scheme,
            algorithmName: algorithm.rawValue as String)
        return true
    } catch {
        reportKeyError(errorOut, error)
        return false
    }
}
