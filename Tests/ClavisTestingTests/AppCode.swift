import LocalAuthentication

// What an app's own keychain code looks like beside the seeds' functions: a save with a chosen protection class
// and access control, and a read that reports the status.

extension KeychainError: Equatable {
    static func == (left: KeychainError, right: KeychainError) -> Bool {
        switch (left, right) {
        case (.unexpectedStatus(let a), .unexpectedStatus(let b)): a == b
        }
    }
}

/// Saves `secret` under `account` in the app's default group, protected by `accessible` and, when given, `access`.
func save(
    _ secret: String, account: String, accessible: CFString = kSecAttrAccessibleWhenUnlocked,
    access flags: SecAccessControlCreateFlags? = nil, accessGroup: String? = nil
) -> OSStatus {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccount as String: account,
        kSecValueData as String: Data(secret.utf8),
    ]
    if let flags {
        query[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(nil, accessible, flags, nil)
    } else {
        query[kSecAttrAccessible as String] = accessible
    }
    if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
    return SecItemAdd(query as CFDictionary, nil)
}

/// Reads the secret saved under `account`, with `context` when given and without asking the user when `prompting`
/// is false: the status, and the secret when there is one.
func read(account: String, context: LAContext? = nil, prompting: Bool = true) -> (OSStatus, String?) {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrAccount as String: account,
        kSecReturnData as String: true,
    ]
    if let context { query[kSecUseAuthenticationContext as String] = context }
    if !prompting { query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail }
    var result: AnyObject?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
}
