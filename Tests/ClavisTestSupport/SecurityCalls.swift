#if os(Linux)
    import Foundation
    import Security

    /// `SecItemCopyMatching` returning its status and result together.
    public func copyMatching(_ query: [String: Any]) -> (status: OSStatus, result: AnyObject?) {
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    /// `SecItemAdd` returning its status and result together.
    public func addItem(_ attributes: [String: Any]) -> (status: OSStatus, result: AnyObject?) {
        var result: AnyObject?
        let status = SecItemAdd(attributes as CFDictionary, &result)
        return (status, result)
    }

    /// Adds a generic password and returns the status.
    @discardableResult
    public func addGenericPassword(
        service: String, account: String, data: Data = Data("secret".utf8), extra: [String: Any] = [:]
    ) -> OSStatus {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecValueData as String: data,
        ]
        query.merge(extra) { _, new in new }
        return SecItemAdd(query as CFDictionary, nil)
    }
#endif
