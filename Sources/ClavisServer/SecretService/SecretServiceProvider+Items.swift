import ClavisCore

/// The collection and item calls: each maps onto the caller's keychain (`SecretServiceKeychain`) and names the
/// signals its change emits.
extension SecretServiceProvider {
    /// Service.SearchItems (every collection) or Collection.SearchItems. While the keychain is locked, the items the
    /// lock keeps closed are found by their digests (`SecretServiceKeychain.lockedItemPaths`) and answered in the
    /// `locked` list, so that a client (libsecret's lookup) unlocks them and reads their secrets.
    func search(_ request: SecretServiceRequest, in object: SecretServiceObject, _ keychain: SecretServiceKeychain)
        throws(SecretServiceError) -> SecretServiceReply
    {
        let collection: String?
        switch object {
        case .service: collection = nil
        case .collection(let name): collection = try existing(name, keychain).name
        default: throw SecretServiceError(.noSuchObject, "no such collection")
        }
        let attributes = request.attributes ?? [:]
        var found: [SecretServiceKeychain.StoredItem] = []
        do {
            found = try keychain.items(in: collection, matching: attributes)
        } catch  where error.kind == .isLocked {
            // Every matching keychain item is closed: the locked list below names them; the session collection's
            // stay open.
            found = collection == nil ? keychain.sessionItems(matching: attributes) : []
        }
        let closed = try keychain.lockedItemPaths(in: collection, matching: attributes)
        var open: [String] = []
        var locked: [String] = []
        for item in found {
            if keychain.isLocked(item) { locked.append(item.object.path) } else { open.append(item.object.path) }
        }
        return SecretServiceReply(paths: open, secondPaths: locked + closed)
    }

    /// Service.GetSecrets (the items that do not exist are left out) and Item.GetSecret (strict: they fail). A locked
    /// item fails both with `IsLocked`: the client unlocks it first.
    func secrets(_ request: SecretServiceRequest, _ keychain: SecretServiceKeychain) throws(SecretServiceError)
        -> SecretServiceReply
    {
        let session = try session(request.object, of: request.sender)
        var reply = SecretServiceReply()
        for path in request.objects {
            do throws(SecretServiceError) {
                guard case .item(let collection, let id) = SecretServiceObject(path: path),
                    let item = try keychain.item(id, in: collection, withSecret: true), let secret = item.secret
                else {
                    throw SecretServiceError(.noSuchObject, "no such item")
                }
                reply.secrets.append(
                    (path, try session.seal(secret, contentType: item.contentType, path: request.object)))
            } catch  where !request.strict && error.kind != .isLocked {
                continue
            }
        }
        return reply
    }

    /// Service.CreateCollection: the `default` alias answers `login`; any other makes a new collection.
    func createCollection(_ request: SecretServiceRequest, _ keychain: SecretServiceKeychain)
        throws(SecretServiceError) -> SecretServiceReply
    {
        if request.text == SecretServiceObject.defaultAlias {
            return SecretServiceReply(paths: [
                SecretServiceObject.collection(SecretServiceObject.defaultCollection).path
            ])
        }
        guard request.text.isEmpty else {
            throw SecretServiceError(.notSupported, "only the default alias exists: create the collection without one")
        }
        let created = try keychain.createCollection(label: request.label ?? "")
        let path = SecretServiceObject.collection(created.name).path
        return SecretServiceReply(paths: [path], signals: [(SecretServiceObject.root, "CollectionCreated", path)])
    }

    /// Collection.Delete (its items with it; `login` stays, empty) and Item.Delete.
    func delete(_ object: SecretServiceObject, _ keychain: SecretServiceKeychain) throws(SecretServiceError)
        -> SecretServiceReply
    {
        switch object {
        case .collection(let name):
            let collection = try existing(name, keychain).name
            let path = SecretServiceObject.collection(collection).path
            let ids = try keychain.deleteCollection(collection)
            var reply = SecretServiceReply()
            reply.signals = ids.map {
                (path, "ItemDeleted", SecretServiceObject.item(collection: collection, id: $0).path)
            }
            reply.signals.append(
                (
                    SecretServiceObject.root,
                    collection == SecretServiceObject.defaultCollection ? "CollectionChanged" : "CollectionDeleted",
                    path
                ))
            return reply
        case .item(let collection, let id):
            try keychain.deleteItem(id, in: collection)
            let path = SecretServiceObject.collection(collection).path
            return SecretServiceReply(signals: [(path, "ItemDeleted", object.path)])
        default: throw SecretServiceError(.noSuchObject, "no such collection or item")
        }
    }

    /// Collection.CreateItem, replacing the item with the same attributes when asked.
    func createItem(_ request: SecretServiceRequest, in object: SecretServiceObject, _ keychain: SecretServiceKeychain)
        throws(SecretServiceError) -> SecretServiceReply
    {
        guard case .collection(let name) = object else { throw SecretServiceError(.noSuchObject, "no such collection") }
        let collection = try existing(name, keychain).name
        guard let transported = request.secret else { throw SecretServiceError(.invalidArguments, "no secret given") }
        let secret = try session(transported.session, of: request.sender).open(transported)
        let (item, replaced) = try keychain.createItem(
            in: collection, label: request.label ?? "", attributes: request.attributes ?? [:], secret: secret,
            contentType: transported.contentType, replace: request.replace)
        let path = item.object.path
        return SecretServiceReply(
            paths: [path],
            signals: [(SecretServiceObject.collection(collection).path, replaced ? "ItemChanged" : "ItemCreated", path)]
        )
    }

    /// Item.SetSecret.
    func setSecret(_ request: SecretServiceRequest, of object: SecretServiceObject, _ keychain: SecretServiceKeychain)
        throws(SecretServiceError) -> SecretServiceReply
    {
        guard case .item(let collection, let id) = object, let transported = request.secret else {
            throw SecretServiceError(.noSuchObject, "no such item")
        }
        let secret = try session(transported.session, of: request.sender).open(transported)
        try keychain.update(id, in: collection, secret: secret, contentType: transported.contentType)
        return SecretServiceReply(signals: [
            (SecretServiceObject.collection(collection).path, "ItemChanged", object.path)
        ])
    }

    /// The properties of the service (Collections), a collection (Items, Label, Locked, Created, Modified) or an
    /// item (Locked, Attributes, Label, Created, Modified); the service's collections and a collection's items only
    /// `withChildren` (listing a collection's items reads each of them). An item the locked keychain keeps closed is
    /// described as locked with an empty label, its attributes and dates sealed (`IsLocked`).
    func describe(_ object: SecretServiceObject, withChildren: Bool, _ keychain: SecretServiceKeychain)
        throws(SecretServiceError) -> SecretServiceReply
    {
        var reply = SecretServiceReply()
        switch object {
        case .service:
            if withChildren {
                reply.paths = try keychain.collections().map { SecretServiceObject.collection($0.name).path }
            }
            reply.description = ("", keychain.isLocked, 0, 0)
        case .collection(let name):
            let collection = try existing(name, keychain)
            if withChildren {
                reply.paths =
                    keychain.isLocked && collection.name != SessionCollection.name
                    ? try keychain.lockedItemPaths(in: collection.name, matching: [:])
                    : try keychain.items(in: collection.name, matching: [:]).map(\.object.path)
            }
            let locked = collection.name != SessionCollection.name && keychain.isLocked
            reply.description = (collection.label, locked, collection.created, collection.modified)
        case .item(let collection, let id):
            if try keychain.isLockedItem(id, in: collection) {
                reply.description = ("", true, 0, 0)
                reply.detailsAreSealed = true
                return reply
            }
            guard let item = try keychain.item(id, in: collection) else {
                throw SecretServiceError(.noSuchObject, "no such item")
            }
            reply.description = (item.label, keychain.isLocked(item), item.created, item.modified)
            reply.attributes = item.attributes
        default: throw SecretServiceError(.noSuchObject, "no such object")
        }
        return reply
    }

    /// Writes a collection's Label, or an item's Label or Attributes.
    func setProperties(
        _ request: SecretServiceRequest, of object: SecretServiceObject, _ keychain: SecretServiceKeychain
    ) throws(SecretServiceError) -> SecretServiceReply {
        switch object {
        case .collection(let name):
            let collection = try existing(name, keychain).name
            if let label = request.label { try keychain.relabelCollection(collection, label: label) }
            let path = SecretServiceObject.collection(collection).path
            return SecretServiceReply(signals: [(SecretServiceObject.root, "CollectionChanged", path)])
        case .item(let collection, let id):
            try keychain.update(id, in: collection, label: request.label, attributes: request.attributes)
            return SecretServiceReply(signals: [
                (SecretServiceObject.collection(collection).path, "ItemChanged", object.path)
            ])
        default: throw SecretServiceError(.noSuchObject, "no such collection or item")
        }
    }

    /// The caller's collection `name`.
    ///
    /// - Throws: `NoSuchObject` when it has none of that name.
    private func existing(_ name: String, _ keychain: SecretServiceKeychain) throws(SecretServiceError)
        -> SecretServiceKeychain.Collection
    {
        guard let collection = try keychain.collection(named: name) else {
            throw SecretServiceError(.noSuchObject, "no such collection: \(name)")
        }
        return collection
    }
}
