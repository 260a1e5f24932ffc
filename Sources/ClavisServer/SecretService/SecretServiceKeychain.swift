import ClavisCore
import ClavisEmbedded
import FoundationEssentials

/// The Secret Service's collections and items as keychain items, for one caller (whose groups its keychain service
/// applies):
///
/// - An item is a generic password (`SecretServiceItem`): `svce` the collection's name, `labl` its label, `ssat` its
///   attributes (`SecretServiceAttributes`, searchable through keyed digests without decrypting other items), `gena`
///   the secret's content type, the secret its value; `cdat`/`mdat` are its Created and Modified; `acct` is random.
///   Its id (the last element of its path) is its persistent reference in hexadecimal, which the store keeps
///   unsealed: while the keychain is locked a search still names the items it matches, as locked. It is
///   `WhenUnlocked`: locking the keychain locks it.
/// - A collection other than `login` is a marker generic password: `svce` `org.freedesktop.Secret.Collection`,
///   `acct` its name, `labl` its label; `AfterFirstUnlock`, so that collections are listed while the keychain is
///   locked. `login`, the `default` alias, always exists.
/// - `session`, also always there, holds its items in the daemon's memory only (`SessionCollection`).
///
/// An item with an access control (`accc`, made through Apple's API in a group Secret Service clients hold) is
/// locked until the caller's program proved the passcode through an unlock prompt, which the daemon records for
/// that client (`CallerAuthentication`) for the reuse window.
struct SecretServiceKeychain: Sendable {
    /// What one client proved, for as long as it is on the bus: the process it was identified as, and the daemon's
    /// record of its authentications (`AuthenticationLedger`) with the session it is kept under.
    struct CallerAuthentication: Sendable {
        let ledger = AuthenticationLedger()
        let session = AuthenticationSessionID.random()
        /// The client's process and keychain service, worked out at its first call.
        let caller = IdentifiedCaller()
    }

    /// A collection as stored.
    struct Collection {
        var name: String
        var label: String
        var created: UInt64
        var modified: UInt64
    }

    /// An item as stored.
    struct StoredItem {
        var collection: String
        var id: String
        var label: String
        var attributes: [String: String]
        var contentType: String
        var created: UInt64
        var modified: UInt64
        var secret: SecureBytes?
        /// The item has an access control: reading it takes an authentication.
        var hasAccessControl = false

        var object: SecretServiceObject { .item(collection: collection, id: id) }
    }

    /// The caller's keychain service.
    let service: EmbeddedKeychainService
    /// What the caller proved.
    let authentication: CallerAuthentication
    /// The caller's process, as identified.
    let peer: PeerProcess
    /// The `session` collection of every caller (each sees its own group's).
    let session: SessionCollection

    /// The group the caller's `session` collection belongs to: where its keychain items go.
    private var sessionGroup: String { service.entitlements.defaultGroup }

    /// The proof every item call carries: whatever the daemon recorded for the caller's session (a claim the ledger
    /// vets, so it counts only once the passcode was verified for that session).
    private var proof: AuthenticationProof { AuthenticationProof(passcode: true, session: authentication.session) }

    /// True while the caller's passcode proof is fresh.
    var isAuthenticated: Bool {
        service.provesPasscode(proof)
    }

    /// The items among `objects` (paths) that stay locked while the keychain is open: those with an access control,
    /// until the caller proves the passcode.
    func accessControlledItems(among objects: [String]) -> [String] {
        objects.filter { path in
            guard case .item(let collection, let id) = SecretServiceObject(path: path),
                let item = try? item(id, in: collection)
            else { return false }
            return isLocked(item)
        }
    }

    /// True when `item` cannot be read now: the keychain is locked, or the item has an access control and the
    /// caller has not proved the passcode lately.
    /// An item of the `session` collection never is: nothing seals it.
    func isLocked(_ item: StoredItem) -> Bool {
        item.collection != SessionCollection.name && (isLocked || (item.hasAccessControl && !isAuthenticated))
    }

    /// True when the caller's items go to the group every Secret Service client shares (`SecretServiceSharing`).
    var isShared: Bool { service.entitlements.defaultGroup == SecretServiceItem.sharedAccessGroup }

    /// True unless the keychain is unlocked: its collections and items are then locked.
    var isLocked: Bool { service.isLocked }

    // MARK: Collections

    /// Every collection the caller sees: `login` first, then the others (each has a marker, as `CreateCollection`
    /// and `clavis import-secret-service` leave one) by name.
    func collections() throws(SecretServiceError) -> [Collection] {
        var found = try markedCollections()
        let login = found.removeValue(forKey: SecretServiceObject.defaultCollection)
        found[SessionCollection.name] = nil
        return [login ?? Self.login, session.collection(for: sessionGroup)] + found.values.sorted { $0.name < $1.name }
    }

    /// The collection `name`, or `nil` when the caller has none of that name.
    func collection(named name: String) throws(SecretServiceError) -> Collection? {
        if name == SessionCollection.name { return session.collection(for: sessionGroup) }
        if let marked = try markedCollections()[name] { return marked }
        return name == SecretServiceObject.defaultCollection ? Self.login : nil
    }

    /// The collections with a marker, by name. Before the first unlock even markers are closed: there are none then.
    private func markedCollections() throws(SecretServiceError) -> [String: Collection] {
        var found: [String: Collection] = [:]
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string(SecretServiceItem.collectionMarkerService)])
        if case .done(let markers) = try call({ () throws(KeychainError) in try service.find(query) }) {
            for marker in markers {
                guard let name = marker.attributes[.account]?.stringValue else { continue }
                found[name] = Collection(
                    name: name, label: marker.attributes[.label]?.stringValue ?? name,
                    created: Self.seconds(marker.attributes[.creationDate]),
                    modified: Self.seconds(marker.attributes[.modificationDate]))
            }
        }
        return found
    }

    /// `login`, the collection that always exists, without a marker.
    private static let login = Collection(
        name: SecretServiceObject.defaultCollection, label: "Login", created: 0, modified: 0)

    /// Creates a collection labelled `label`, named after it (letters, digits and `_`; a number added when taken).
    func createCollection(label: String) throws(SecretServiceError) -> Collection {
        let taken = Set(try collections().map(\.name))
        let base = String(
            label.unicodeScalars.map {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? Character($0) : "_"
            })
        let stem = base.isEmpty ? "collection" : base
        var name = stem
        var number = 1
        while taken.contains(name) {
            number += 1
            name = stem + String(number)
        }
        let marker = SecretServiceItem.collectionMarker(name: name, label: label, accessGroup: nil)
        let stored = try unwrap(call { () throws(KeychainError) in try service.add(marker) })
        return Collection(
            name: name, label: label, created: Self.seconds(stored.attributes[.creationDate]),
            modified: Self.seconds(stored.attributes[.modificationDate]))
    }

    /// Relabels the collection `name`. `login`, which exists without a marker, gets one holding its new label, as
    /// the specification makes `Collection.Label` writable for every collection.
    func relabelCollection(_ name: String, label: String) throws(SecretServiceError) {
        if name == SessionCollection.name { return session.relabel(label, for: sessionGroup) }
        let query = SecretServiceItem.collectionMarkerQuery(name: name)
        let changed = try unwrap(
            call { () throws(KeychainError) in
                try service.update(query, with: ItemChanges(attributes: [.label: .string(label)]))
            })
        guard changed == 0 else { return }
        guard name == SecretServiceObject.defaultCollection else {
            throw SecretServiceError(.noSuchObject, "no such collection: \(name)")
        }
        let marker = SecretServiceItem.collectionMarker(name: name, label: label, accessGroup: nil)
        _ = try unwrap(call { () throws(KeychainError) in try service.add(marker) })
    }

    /// Deletes the collection `name` and its items; the ids of the items deleted.
    func deleteCollection(_ name: String) throws(SecretServiceError) -> [String] {
        guard name != SessionCollection.name else {
            throw SecretServiceError(.notSupported, "the session collection is the daemon's: delete its items")
        }
        let ids = try items(in: name, matching: [:]).map(\.id)
        for id in ids { try deleteItem(id, in: name) }
        let marker = SecretServiceItem.collectionMarkerQuery(name: name)
        _ = try unwrap(call { () throws(KeychainError) in try service.delete(marker) })
        return ids
    }

    // MARK: Items

    /// The items of `collection` (every collection when `nil`) holding every pair of `attributes`, found through
    /// the attributes' digests.
    ///
    /// - Throws: `isLocked` while the keychain is locked.
    func items(in collection: String?, matching attributes: [String: String]) throws(SecretServiceError)
        -> [StoredItem]
    {
        if collection == SessionCollection.name { return sessionItems(matching: attributes) }
        let query = SecretServiceItem.query(collection: collection, attributes: attributes)
        let found = try unwrap(call { () throws(KeychainError) in try service.find(query) })
        return found.compactMap(Self.storedItem) + (collection == nil ? sessionItems(matching: attributes) : [])
    }

    /// The items of the caller's `session` collection holding every pair of `attributes` (open while the keychain
    /// is locked too).
    func sessionItems(matching attributes: [String: String]) -> [StoredItem] {
        session.items(for: sessionGroup, matching: attributes)
    }

    /// The paths of the items of `collection` (every collection the caller sees when `nil`) holding every pair of
    /// `attributes` that the locked keychain keeps closed, found by their digests without decrypting anything
    /// (`KeychainService.lockedItemReferences`); empty while the keychain is unlocked. An item's collection is
    /// sealed with it, so a search of every collection asks each collection known while locked (`login` and those
    /// with a marker) in turn.
    func lockedItemPaths(in collection: String?, matching attributes: [String: String]) throws(SecretServiceError)
        -> [String]
    {
        guard isLocked, collection != SessionCollection.name else { return [] }
        let names =
            if let collection { [collection] } else {
                try collections().map(\.name).filter { $0 != SessionCollection.name }
            }
        var paths: [String] = []
        for name in names {
            let query = SecretServiceItem.query(collection: name, attributes: attributes)
            let references = try call { () throws(KeychainError) in try service.lockedItemReferences(query) }
            paths += references.map {
                SecretServiceObject.item(collection: name, id: SecretServiceItem.id(of: $0)).path
            }
        }
        return paths
    }

    /// True when `collection` holds the item `id` and the locked keychain keeps it closed.
    func isLockedItem(_ id: String, in collection: String) throws(SecretServiceError) -> Bool {
        guard isLocked, collection != SessionCollection.name, let query = itemQuery(id, in: collection) else {
            return false
        }
        return try !call { () throws(KeychainError) in try service.lockedItemReferences(query) }.isEmpty
    }

    /// The item `id` of `collection`, with its secret when `withSecret`; `nil` when the caller has no such item.
    ///
    /// - Throws: `isLocked` while the keychain is locked.
    func item(_ id: String, in collection: String, withSecret: Bool = false) throws(SecretServiceError)
        -> StoredItem?
    {
        if collection == SessionCollection.name { return session.item(id, for: sessionGroup) }
        guard var query = itemQuery(id, in: collection) else { return nil }
        query.limit = .one
        query.returnsSecret = withSecret
        return try unwrap(call { () throws(KeychainError) in try service.find(query) }).first.flatMap(Self.storedItem)
    }

    /// The query for the item `id` of `collection`, by the persistent reference its id names, with the caller's
    /// proof; `nil` for an id that names no reference.
    private func itemQuery(_ id: String, in collection: String) -> ItemQuery? {
        guard let reference = SecretServiceItem.reference(forID: id) else { return nil }
        return ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string(collection)], persistentReference: reference,
            authentication: proof)
    }

    /// Stores a new item in `collection`, or, with `replace`, updates the one there whose attributes are exactly
    /// `attributes`; the item and whether it replaced one.
    func createItem(
        in collection: String, label: String, attributes: [String: String], secret: SecureBytes,
        contentType: String, replace: Bool
    ) throws(SecretServiceError) -> (item: StoredItem, replaced: Bool) {
        if collection == SessionCollection.name {
            return session.create(
                for: sessionGroup, label: label, attributes: attributes, secret: secret, contentType: contentType,
                replace: replace)
        }
        if replace,
            let existing = try items(in: collection, matching: attributes).first(where: { $0.attributes == attributes })
        {
            try update(existing.id, in: collection, label: label, secret: secret, contentType: contentType)
            guard let updated = try item(existing.id, in: collection) else {
                throw SecretServiceError(.failed, "the item replaced has gone")
            }
            return (updated, true)
        }
        let new = SecretServiceItem(
            collection: collection, label: label, attributes: attributes, secret: secret, contentType: contentType
        ).newItem(accessGroup: service.entitlements.defaultGroup)
        let stored = try unwrap(call { () throws(KeychainError) in try service.add(new) })
        guard let item = Self.storedItem(stored) else { throw SecretServiceError(.failed, "the item was not stored") }
        return (item, false)
    }

    /// Changes what is given of the item `id` of `collection`.
    func update(
        _ id: String, in collection: String, label: String? = nil, attributes: [String: String]? = nil,
        secret: SecureBytes? = nil, contentType: String? = nil
    ) throws(SecretServiceError) {
        if collection == SessionCollection.name {
            return try session.update(
                id, for: sessionGroup, label: label, attributes: attributes, secret: secret, contentType: contentType)
        }
        var changes = ItemChanges(secret: secret)
        if let label { changes.attributes[.label] = .string(label) }
        if let attributes {
            changes.attributes[.secretServiceAttributes] = .data(SecretServiceAttributes(attributes).encoded)
        }
        if let contentType { changes.attributes[.generic] = .string(contentType) }
        guard let query = itemQuery(id, in: collection) else { throw SecretServiceError(.noSuchObject, "no such item") }
        let changed = try unwrap(call { () throws(KeychainError) in try service.update(query, with: changes) })
        guard changed > 0 else { throw SecretServiceError(.noSuchObject, "no such item") }
    }

    /// Deletes the item `id` of `collection`.
    func deleteItem(_ id: String, in collection: String) throws(SecretServiceError) {
        if collection == SessionCollection.name { return try session.delete(id, for: sessionGroup) }
        guard let query = itemQuery(id, in: collection) else { throw SecretServiceError(.noSuchObject, "no such item") }
        let deleted = try unwrap(call { () throws(KeychainError) in try service.delete(query) })
        guard deleted > 0 else { throw SecretServiceError(.noSuchObject, "no such item") }
    }

    // MARK: Conversions

    /// The Secret Service item a keychain item is, when it is one (it carries `ssat`).
    private static func storedItem(_ item: Item) -> StoredItem? {
        guard let attributes = SecretServiceAttributes(of: item.attributes),
            let collection = item.attributes[.service]?.stringValue
        else { return nil }
        let contentType: String
        switch item.attributes[.generic] {
        case .string(let text): contentType = text
        case .data(let bytes): contentType = String(decoding: bytes, as: UTF8.self)
        default: contentType = "text/plain"
        }
        return StoredItem(
            collection: collection, id: SecretServiceItem.id(of: item.persistentReference),
            label: item.attributes[.label]?.stringValue ?? "",
            attributes: attributes.pairs, contentType: contentType,
            created: seconds(item.attributes[.creationDate]), modified: seconds(item.attributes[.modificationDate]),
            secret: item.secret, hasAccessControl: item.attributes[.accessControl] != nil)
    }

    /// A date attribute in seconds since 1970, as the specification's Created and Modified.
    private static func seconds(_ value: AttributeValue?) -> UInt64 {
        guard case .date(let date) = value else { return 0 }
        return UInt64(max(0, date.timeIntervalSince1970))
    }

    /// Runs a keychain call, its error named as the Secret Service names it.
    private func call<Result>(_ body: () throws(KeychainError) -> Result) throws(SecretServiceError) -> Result {
        do {
            return try body()
        } catch {
            throw SecretServiceError(error)
        }
    }

    /// The result of an answer; a locked keychain or an item needing authentication is `IsLocked`.
    private func unwrap<Result>(_ answer: ServiceAnswer<Result>) throws(SecretServiceError) -> Result {
        switch answer {
        case .done(let result): return result
        case .needsUnlock: throw SecretServiceError(.isLocked, "the keychain is locked: unlock it first")
        case .needsAuthentication:
            throw SecretServiceError(.isLocked, "the item's access control needs an authentication first")
        }
    }
}
