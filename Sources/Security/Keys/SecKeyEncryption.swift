import ClavisCore
import ClavisCrypto

/// Encrypts `plaintext` with a public key: RSA (raw, PKCS#1, OAEP, OAEP with AES-GCM) or Apple's ECIES.
///
/// Returns nil with `errSecParam` when the key cannot run the algorithm (Apple's "algorithm not supported by the
/// key") and for input it refuses (too long for the padding, a raw block that is not the modulus' length or not below it).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let plan = supportedPlan(key, .encrypt, algorithm, errorOut) else { return nil }
    let message = plaintext.secureBytes
    do throws(CryptoError) {
        let ciphertext: [UInt8]
        switch plan {
        case .rsaEncryption(let padding): ciphertext = try key.key.encrypt(message, padding: padding)
        case .rsaHybrid(let digest): ciphertext = try AppleRSAHybrid.seal(message, to: key.key, digest: digest)
        case .ecies(let digest, let variableIV):
            ciphertext = try AppleECIES.seal(message, to: key.key, digest: digest, variableIV: variableIV)
        case .signature, .keyExchange: preconditionFailure("supportedPlan admits only encryption plans")
        }
        return Data(ciphertext) as NSData
    } catch {
        reportKeyError(errorOut, .param, "\(algorithm.rawValue): the input cannot be encrypted with this key")
        return nil
    }
}

/// Decrypts `ciphertext` with a private key; the algorithm must be the one it was encrypted with.
///
/// Returns nil with `errSecParam` when the ciphertext is malformed or does not authenticate, and when the key
/// cannot run the algorithm.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let plan = supportedPlan(key, .decrypt, algorithm, errorOut) else { return nil }
    let bytes = ciphertext.byteArray
    if let token = key.token, case .ecies(let digest, let variableIV) = plan,
        case .ellipticCurve(let curve) = key.key.kind
    {
        return decryptedWithTokenKey(token, bytes, curve: curve, digest: digest, variableIV, algorithm, errorOut)
    }
    do throws(CryptoError) {
        let plaintext: SecureBytes
        switch plan {
        case .rsaEncryption(let padding): plaintext = try key.key.decrypt(bytes, padding: padding)
        case .rsaHybrid(let digest): plaintext = try AppleRSAHybrid.open(bytes, with: key.key, digest: digest)
        case .ecies(let digest, let variableIV):
            plaintext = try AppleECIES.open(bytes, with: key.key, digest: digest, variableIV: variableIV)
        case .signature, .keyExchange: preconditionFailure("supportedPlan admits only decryption plans")
        }
        // The caller asked for the plaintext: it leaves the zeroing buffer only here, into the CFData.
        return plaintext.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    } catch {
        reportKeyError(errorOut, .param, "\(algorithm.rawValue): decryption failed")
        return nil
    }
}

/// Apple's ECIES decryption with a key the keychain service holds: the service computes the ECDH secret with the
/// ephemeral public key, and the rest (X9.63 KDF, AES-GCM) runs here, as with Apple's Secure Enclave.
private func decryptedWithTokenKey(
    _ token: TokenHandle, _ bytes: [UInt8], curve: EllipticCurve, digest: DigestAlgorithm, _ variableIV: Bool,
    _ algorithm: SecKeyAlgorithm, _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    var serviceError: KeychainError?
    do throws(CryptoError) {
        let plaintext = try AppleECIES.open(bytes, curve: curve, digest: digest, variableIV: variableIV) {
            (ephemeral) throws(CryptoError) -> SecureBytes in
            let point = try ephemeral.publicRepresentation()
            do throws(KeychainError) {
                return try token.run(.agree(peerPublicKey: point))
            } catch {
                serviceError = error
                throw CryptoError.invalidInput("the keychain service did not agree")
            }
        }
        return plaintext.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    } catch {
        if let serviceError, serviceError.code != .param {
            reportKeyError(errorOut, serviceError)
        } else {
            reportKeyError(errorOut, .param, "\(algorithm.rawValue): decryption failed")
        }
        return nil
    }
}
