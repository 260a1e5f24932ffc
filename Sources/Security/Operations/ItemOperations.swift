import ClavisClient
import ClavisCore

/// The four keychain calls: each dictionary read into a typed request for the keychain client, whose service applies
/// the caller's entitlements.
enum ItemOperations {
    /// Runs `body` and turns its outcome into an `OSStatus`.
    static func status(_ body: () throws(KeychainError) -> Void) -> OSStatus {
        do {
            try body()
            return errSecSuccess
        } catch {
            return error.osStatus
        }
    }

    /// `SecItemAdd`: stores a new item in the caller's default group or the group it names.
    static func add(_ attributes: NSDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) throws(KeychainError) {
        if let identity = attributes.object(forKey: kSecValueRef) as? SecIdentity {
            guard attributes.count <= ItemRequest.maximumEntries else {
                throw KeychainError(.param, "the dictionary has more than \(ItemRequest.maximumEntries) entries")
            }
            var given: [String: Any] = [:]
            for case (let name as String, let value) in attributes { given[name] = value }
            return try IdentityItems.add(given, identity: identity, result)
        }
        let configuration = ClavisConfiguration.current
        let request = try ItemRequest(attributes, for: .add, defaultRules: .configuredDefault(configuration))
        let item = newItem(for: request)
        var added = try KeychainClient(configuration: configuration).add(
            item, authentication: request.authentication.call)
        guard let result, !request.returns.isEmpty else { return }
        if request.returns.contains(.data) || request.returns.contains(.reference) { added.secret = item.secret }
        result.pointee = ResultShape.object(for: [added], returns: request.returns, limit: .one)
    }

    /// The item an add request stores: its attributes with its group, `sync` and protection, and its secret.
    static func newItem(for request: ItemRequest) -> NewItem {
        var itemAttributes = request.attributes
        if let group = request.accessGroup { itemAttributes[.accessGroup] = .string(group) }
        itemAttributes[.synchronizable] = .bool(request.synchronizable == .yes)
        itemAttributes[.accessible] = .string((request.protection ?? .default).rawValue)
        let secret = request.keySecret ?? SecureBytes(request.secret ?? Data())
        return NewItem(itemClass: request.itemClass, attributes: itemAttributes, secret: secret)
    }

    /// `SecKeyCreateRandomKey` with a token: the key item `attributes` describe, generated and stored by the keychain
    /// service, and the authentication options its uses take.
    static func generateTokenKey(_ attributes: NSDictionary) throws(KeychainError)
        -> (Item, CallAuthentication)
    {
        let request = try ItemRequest(attributes, for: .add)
        var itemAttributes = request.attributes
        if let group = request.accessGroup { itemAttributes[.accessGroup] = .string(group) }
        itemAttributes[.synchronizable] = .bool(request.synchronizable == .yes)
        if let protection = request.protection { itemAttributes[.accessible] = .string(protection.rawValue) }
        let authentication = request.authentication.call
        let key = try KeychainClient().generateTokenKey(attributes: itemAttributes, authentication: authentication)
        return (key.item, authentication)
    }

    /// `SecItemCopyMatching`: finds items in the caller's groups; `errSecItemNotFound` when none match.
    static func copyMatching(_ query: NSDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?)
        throws(KeychainError)
    {
        let configuration = ClavisConfiguration.current
        let request = try ItemRequest(query, for: .copyMatching, defaultRules: .configuredDefault(configuration))
        if request.itemClass == .identity { return try IdentityItems.copyMatching(query, request, result) }
        let limit = request.limit ?? .one
        var itemQuery = itemQuery(for: request, limit: limit)
        // Data asked for is read (and its access control evaluated) even when the caller passes no result, as
        // Apple's server reads what the query asks for whatever the client keeps. A key's or certificate's reference
        // is made from its secret, the external representation or DER, only for a caller that takes it.
        let referenceNeeded =
            result != nil && request.itemClass != .genericPassword && request.itemClass != .internetPassword
            && request.returns.contains(.reference)
        itemQuery.returnsSecret = request.returns.contains(.data) || referenceNeeded
        // Data and persistent references need no attributes; the store still reads keys and certificates whole
        // (their results, and the check for a key a token holds, depend on them).
        itemQuery.returnsAttributes = request.returns.contains(.attributes)
        let items = try KeychainClient(configuration: configuration).find(
            itemQuery, authentication: request.authentication.call)
        guard !items.isEmpty else {
            throw KeychainError.noItemMatches(request.itemClass)
        }
        guard let result else { return }
        if request.returns.contains(.data),
            items.contains(where: { $0.itemClass == .key && TokenKey.isHeld($0.attributes) })
        {
            // The private key a token holds is never returned, as Apple's keychain returns no Secure Enclave key.
            throw KeychainError(.param, "the data of a key held by a token cannot be returned")
        }
        result.pointee = ResultShape.object(
            for: items, returns: request.returns, limit: limit, authentication: request.authentication.call)
    }

    /// `SecItemUpdate`: changes every matching item; `errSecItemNotFound` when none match.
    static func update(_ query: NSDictionary, _ attributesToUpdate: NSDictionary) throws(KeychainError) {
        let configuration = ClavisConfiguration.current
        let request = try ItemRequest(query, for: .update, defaultRules: .configuredDefault(configuration))
        let changes = try AttributeChanges(attributesToUpdate, itemClass: request.itemClass)
        let count = try KeychainClient(configuration: configuration).update(
            itemQuery(for: request, limit: .all), with: changes.itemChanges,
            authentication: request.authentication.call(context: changes.authenticationContext))
        guard count > 0 else {
            throw KeychainError.noItemMatches(request.itemClass)
        }
    }

    /// `SecItemDelete`: deletes every matching item; `errSecItemNotFound` when none match.
    static func delete(_ query: NSDictionary) throws(KeychainError) {
        let configuration = ClavisConfiguration.current
        let request = try ItemRequest(query, for: .delete, defaultRules: .configuredDefault(configuration))
        if request.itemClass == .identity { return try IdentityItems.delete(query) }
        let count = try KeychainClient(configuration: configuration).delete(
            itemQuery(for: request, limit: .all), authentication: request.authentication.call)
        guard count > 0 else {
            throw KeychainError.noItemMatches(request.itemClass)
        }
    }

    /// The query for a request: the group it names, else every group the caller holds (the service checks both).
    static func itemQuery(for request: ItemRequest, limit: MatchLimit) -> ItemQuery {
        ItemQuery(
            itemClass: request.itemClass, attributes: request.attributes, synchronizable: request.synchronizable,
            accessGroups: request.accessGroup.map { [$0] }, persistentReference: request.persistentReference,
            limit: limit, returnsSecret: false)
    }
}
