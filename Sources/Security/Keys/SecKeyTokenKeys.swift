import ClavisClient
import ClavisCore
import ClavisCrypto

/// `SecKeyCreateRandomKey` with `kSecAttrTokenID`: only `kSecAttrTokenIDSecureEnclave` and only EC P-256, as
/// Apple's; anything else answers `errSecParam`. The keychain service generates the private key and keeps it in a
/// `kSecClassKey` item; the `SecKey` answered holds that item's reference and the public key, and every
/// private-key operation goes to the service (`KeychainClient.useKey`). A public key the caller asked to keep
/// (`kSecPublicKeyAttrs` with `kSecAttrIsPermanent`) is stored as an ordinary key item.
///
/// The key must be permanent (`kSecAttrIsPermanent`, at the top level or in `kSecPrivateKeyAttrs`): Clavis has no
/// token to hold a key outside the keychain yet, so a transient one answers `errSecUnimplemented`.
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
    guard isTrue(attributes[kSecAttrIsPermanent as String]) else {
        reportKeyError(errorOut, .unimplemented, "a key held by the token must be permanent (kSecAttrIsPermanent)")
        return nil
    }
    for name in [kSecAttrKeyType, kSecAttrKeySizeInBits, kSecAttrKeyClass] {
        attributes.removeValue(forKey: name as String)
    }
    attributes[kSecClass as String] = kSecClassKey
    attributes[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave
    do throws(KeychainError) {
        let (item, authentication) = try ItemOperations.generateTokenKey(attributes as NSDictionary)
        guard let key = KeyItem.reference(for: item, authentication: authentication) else {
            throw KeychainError(.internal, "the keychain service answered a key without its public key")
        }
        var publicKeyAttributes = shared.merging(publicAttributes) { _, new in new }
        publicKeyAttributes.removeValue(forKey: kSecAttrTokenID as String)
        var given: [String: Any] = [:]
        for case (let name as String, let value) in key.givenAttributes { given[name] = value }
        let made = SecKey(
            key: key.key, attributes: given, publicKeyAttributes: publicKeyAttributes, token: key.token)
        if isTrue(publicAttributes[kSecAttrIsPermanent as String]), let publicKey = SecKeyCopyPublicKey(made) {
            do throws(KeychainError) {
                _ = try addKeyItem(publicKey, attributes: publicKeyAttributes)
            } catch {
                // The pair is stored whole or not at all.
                let reference = Data(item.persistentReference.bytes)
                _ = try? ItemOperations.delete([kSecValuePersistentRef as String: reference] as NSDictionary)
                throw error
            }
        }
        return made
    } catch {
        reportKeyError(errorOut, error)
        return nil
    }
}
