import ClavisCore

// The constants whose values the model owns: an attribute's code (`AttributeSchema`), a protection class's code.

extension AttributeKey {
    /// The attribute's `kSecAttr*` constant: its code.
    var constant: CFString { CFString(string: rawValue) }
}

extension ProtectionClass {
    /// The class's `kSecAttrAccessible*` constant: its code.
    var constant: CFString { CFString(string: rawValue) }
}
