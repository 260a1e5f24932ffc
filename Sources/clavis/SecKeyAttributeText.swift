import Foundation
import Security

extension SecKey {
    /// The attribute `name` of `SecKeyCopyAttributes` as text, whether the key reports it as a string or a number
    /// (`kSecAttrKeyType` and `kSecAttrKeyClass` come back as either).
    func attributeText(_ name: CFString) -> String? {
        (SecKeyCopyAttributes(self) as? [String: Any])?[name as String].map { "\($0)" }
    }
}
