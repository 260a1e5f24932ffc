import ClavisCore
import ClavisCrypto

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
    guard case .signature(let plan) = supportedPlan(key, .sign, algorithm, errorOut) else { return nil }
    do throws(CryptoError) {
        let digest = plan.input(dataToSign.byteArray)
        var signature: [UInt8]
        if let token = key.token {
            // The keychain service signs with the key it holds; the digest is all it sees.
            if let expected = plan.digest, digest.count != expected.byteCount {
                reportKeyError(errorOut, .param, "bad digest size for \(algorithm.rawValue)")
                return nil
            }
            do throws(KeychainError) {
                signature = try token.run(.signDigest(digest)).withUnsafeBytes { Array($0) }
            } catch {
                reportKeyError(errorOut, error)
                return nil
            }
        } else {
            signature = try key.key.sign(digest: digest, algorithm: plan.digest, padding: plan.padding)
        }
        if plan.rawECDSA, case .ellipticCurve(let curve) = key.key.kind {
            signature = try ECDSASignature.raw(fromDER: signature, curve: curve)
        }
        return Data(signature) as NSData
    } catch {
        reportKeyError(errorOut, .param, "\(algorithm.rawValue): the input cannot be signed with this key")
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
    guard case .signature(let plan) = supportedPlan(key, .verify, algorithm, errorOut) else { return false }
    let digest = plan.input(signedData.byteArray)
    if let expected = plan.digest, digest.count != expected.byteCount {
        reportKeyError(errorOut, .param, "bad digest size for \(algorithm.rawValue)")
        return false
    }
    if plan.padding == .none, digest.count != key.key.blockByteCount {
        reportKeyError(errorOut, .param, "raw RSA input must be \(key.key.blockByteCount) bytes")
        return false
    }
    var bytes = signature.byteArray
    if plan.rawECDSA, case .ellipticCurve(let curve) = key.key.kind {
        guard let der = try? ECDSASignature.der(fromRaw: bytes, curve: curve) else {
            reportKeyError(errorOut, .verifyFailed, "Wrong ECDSA RFC4754 signature")
            return false
        }
        bytes = der
    }
    let verified =
        (try? key.key.verify(signature: bytes, digest: digest, algorithm: plan.digest, padding: plan.padding))
    guard verified == true else {
        reportKeyError(errorOut, .verifyFailed, "\(algorithm.rawValue): signature verification failed")
        return false
    }
    return true
}

extension KeyAlgorithmPlan.Signature {
    /// The digest the key signs: the message hashed, or the input as it is.
    func input(_ data: [UInt8]) -> [UInt8] {
        guard hashesMessage, let digest else { return data }
        return digest.hash(data)
    }
}
