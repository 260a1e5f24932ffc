import ClavisCore

/// The four keychain calls over typed requests: entitlements applied, then the transport's store asked.
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
        let request = try ItemRequest(attributes, for: .add)
        let entitlements = try Entitlements.current()
        let group = request.accessGroup ?? entitlements.defaultGroup
        try entitlements.require(group)
        let protection = request.protection ?? .default
        var itemAttributes = request.attributes
        itemAttributes[.accessGroup] = .string(group)
        itemAttributes[.synchronizable] = .bool(request.synchronizable == .yes)
        itemAttributes[.accessible] = .string(protection.rawValue)
        let secret = SecureBytes(request.secret ?? Data())
        let store = try Transport.current.store()
        var added = try AuthenticatedCall.run(request.authentication, operation: .add, store: store) {
            (proof, _) throws(KeychainError) in
            try store.add(
                NewItem(itemClass: request.itemClass, attributes: itemAttributes, secret: secret, authentication: proof)
            )
        }
        guard let result, !request.returns.isEmpty else { return }
        if request.returns.contains(.data) { added.secret = secret }
        result.pointee = ResultShape.object(for: [added], returns: request.returns, limit: .one)
    }

    /// `SecItemCopyMatching`: finds items in the caller's groups; `errSecItemNotFound` when none match.
    static func copyMatching(_ query: NSDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?)
        throws(KeychainError)
    {
        let request = try ItemRequest(query, for: .copyMatching)
        let limit = request.limit ?? .one
        var itemQuery = try itemQuery(for: request, limit: limit)
        itemQuery.returnsSecret = result != nil && request.returns.contains(.data)
        let store = try Transport.current.store()
        let items = try AuthenticatedCall.run(request.authentication, operation: .copyMatching, store: store) {
            (proof, unauthenticated) throws(KeychainError) in
            itemQuery.authentication = proof
            itemQuery.unauthenticatedItems = unauthenticated
            return try store.find(itemQuery)
        }
        guard !items.isEmpty else {
            throw KeychainError(.itemNotFound, "no \(request.itemClass.rawValue) item matches the query")
        }
        guard let result else { return }
        result.pointee = ResultShape.object(for: items, returns: request.returns, limit: limit)
    }

    /// `SecItemUpdate`: changes every matching item; `errSecItemNotFound` when none match.
    static func update(_ query: NSDictionary, _ attributesToUpdate: NSDictionary) throws(KeychainError) {
        let request = try ItemRequest(query, for: .update)
        let changes = try AttributeChanges(attributesToUpdate, itemClass: request.itemClass)
        let itemQuery = try itemQuery(for: request, limit: .all)
        if let group = changes.accessGroup { try Entitlements.current().require(group) }
        var authentication = request.authentication
        if authentication.context == nil { authentication.context = changes.authenticationContext }
        let store = try Transport.current.store()
        let count = try AuthenticatedCall.run(authentication, operation: .update, store: store) {
            (proof, _) throws(KeychainError) in
            var query = itemQuery
            query.authentication = proof
            return try store.update(query, with: changes.itemChanges)
        }
        guard count > 0 else {
            throw KeychainError(.itemNotFound, "no \(request.itemClass.rawValue) item matches the query")
        }
    }

    /// `SecItemDelete`: deletes every matching item; `errSecItemNotFound` when none match.
    static func delete(_ query: NSDictionary) throws(KeychainError) {
        let request = try ItemRequest(query, for: .delete)
        let itemQuery = try itemQuery(for: request, limit: .all)
        let store = try Transport.current.store()
        let count = try AuthenticatedCall.run(request.authentication, operation: .delete, store: store) {
            (proof, _) throws(KeychainError) in
            var query = itemQuery
            query.authentication = proof
            return try store.delete(query)
        }
        guard count > 0 else {
            throw KeychainError(.itemNotFound, "no \(request.itemClass.rawValue) item matches the query")
        }
    }

    /// The store query for a request, searching the caller's groups (or the one it names, which it must hold).
    private static func itemQuery(for request: ItemRequest, limit: MatchLimit) throws(KeychainError) -> ItemQuery {
        let groups = try Entitlements.current().searchGroups(named: request.accessGroup)
        return ItemQuery(
            itemClass: request.itemClass, attributes: request.attributes, synchronizable: request.synchronizable,
            accessGroups: groups, persistentReference: request.persistentReference, limit: limit,
            returnsSecret: false)
    }
}
