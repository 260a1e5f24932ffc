import ClavisCore

/// Adds an item to the keychain, described by a dictionary of class, attributes and `kSecValueData`.
///
/// Returns `errSecSuccess`, `errSecDuplicateItem` when an item with the same primary key exists,
/// `errSecParam`, `errSecNoSuchClass`, `errSecNoSuchAttr`, `errSecMissingEntitlement`,
/// `errSecInteractionNotAllowed` (keychain locked) or `errSecUnimplemented` (certificates, identities: not stored
/// yet; searching them finds none). A key (`kSecClassKey`) is given as `kSecValueRef` or as `kSecValueData` with
/// `kSecAttrKeyType` and `kSecAttrKeyClass`.
/// When `result` is given and the dictionary has `kSecReturn*` keys, the added item comes back in it.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    ItemOperations.status { () throws(KeychainError) in try ItemOperations.add(attributes, result) }
}

/// Finds items matching a query and returns what its `kSecReturn*` keys ask for.
///
/// Returns `errSecItemNotFound` when nothing matches; `result` may be `nil` to test for existence.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    ItemOperations.status { () throws(KeychainError) in try ItemOperations.copyMatching(query, result) }
}

/// Changes the attributes or data of every item matching a query.
///
/// Returns `errSecItemNotFound` when nothing matches and `errSecDuplicateItem` when a change would collide.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    ItemOperations.status { () throws(KeychainError) in try ItemOperations.update(query, attributesToUpdate) }
}

/// Deletes every item matching a query.
///
/// Returns `errSecItemNotFound` when nothing matches.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    ItemOperations.status { () throws(KeychainError) in try ItemOperations.delete(query) }
}
