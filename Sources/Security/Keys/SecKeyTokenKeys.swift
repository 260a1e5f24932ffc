import ClavisClient
import ClavisCore
import ClavisCrypto

/// `SecKeyCreateRandomKey` with `kSecAttrTokenID`: only `kSecAttrTokenIDSecureEnclave` and only EC P-256, as
/// Apple's; anything else answers `errSecParam`. The keychain service generates the private key; the `SecKey`
/// answered holds the public key and where the private one is, and every private-key operation goes to the service
/// (`KeychainClient.useKey`, `useSealedKey`). A public key the caller asked to keep (`kSecPublicKeyAttrs` with
/// `kSecAttrIsPermanent`) is stored as an ordinary key item.
///
/// A permanent key (`kSecAttrIsPermanent`, at the top level or in `kSecPrivateKeyAttrs`) is kept in a
/// `kSecClassKey` item. Any other lives as long as its `SecKey`: the service seals it to this keychain and hands the
/// box to the `SecKey` (`SealedKey`), so that its private key is never in this process, and no search finds it.
func tokenKey(
    _ token: Any, shared: [String: Any], privateAttributes: [String: Any], publicAttributes: [String: Any],
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    guard keyTypeName(token) == kSecAttrTokenIDSecureEnclave as String else {
        reportKeyError(errorOut, .param, "kSecAttrTokenID names no token this keychain has")
        return nil
    }
    guard keyTypeName(shared[kSecAttrKeyType as String]) == "73",
        integer(shared[kSecAttrKeySizeInBits as String]) == 256
    else {
        reportKeyError(
            errorOut, .param, "the Secure Enclave token holds only 256-bit EC keys (kSecAttrKeyTypeECSECPrimeRandom)")
        return nil
    }
    var attributes = shared.merging(privateAttributes) { _, new in new }
    let permanent = isTrue(attributes[kSecAttrIsPermanent as String])
    for name in [kSecAttrKeyType, kSecAttrKeySizeInBits, kSecAttrKeyClass, kSecAttrIsPermanent] {
        attributes.removeValue(forKey: name as String)
    }
    attributes[kSecClass as String] = kSecClassKey
    attributes[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave
    do throws(KeychainError) {
        let (item, handle) = try ItemOperations.generateTokenKey(attributes as NSDictionary, permanent: permanent)
        guard let key = StoredKey(item) else {
            throw KeychainError(.internal, "the keychain service answered a key without its public key")
        }
        var publicKeyAttributes = shared.merging(publicAttributes) { _, new in new }
        publicKeyAttributes.removeValue(forKey: kSecAttrTokenID as String)
        var given = ResultShape.attributes(of: item)
        given[kSecAttrIsPermanent as String] = permanent
        let made = SecKey(key: key.key, attributes: given, publicKeyAttributes: publicKeyAttributes, token: handle)
        if isTrue(publicAttributes[kSecAttrIsPermanent as String]), let publicKey = SecKeyCopyPublicKey(made) {
            do throws(KeychainError) {
                _ = try addKeyItem(publicKey, attributes: publicKeyAttributes)
            } catch {
                // The pair is stored whole or not at all.
                if permanent {
                    let reference = Data(item.persistentReference.bytes)
                    _ = try? ItemOperations.delete([kSecValuePersistentRef as String: reference] as NSDictionary)
                }
                throw error
            }
        }
        return made
    } catch {
        reportKeyError(errorOut, error)
        return nil
    }
}
