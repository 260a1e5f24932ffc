import ClavisCore
import FoundationEssentials
import Synchronization

/// The `session` collection (`/org/freedesktop/secrets/collection/session`, alias `session`), as gnome-keyring
/// provides it: items held in the daemon's memory only, gone when it stops, never written to `keychain.db` or its
/// log. Each access group (the one Secret Service clients share, or an opted-out app's own) has a session collection
/// of its own, so apps stay apart here as in the keychain. Its items are never locked: nothing seals them.
final class SessionCollection: Sendable {
    /// The collection's name, and the alias naming it.
    static let name = SecretServiceItem.sessionCollection

    private struct Group {
        var label = "Session"
        var items: [String: SecretServiceKeychain.StoredItem] = [:]
    }

    private struct State {
        var groups: [String: Group] = [:]
        var lastID = 0
    }

    private let state = Mutex(State())

    /// The collection as the caller in `group` sees it.
    func collection(for group: String) -> SecretServiceKeychain.Collection {
        let label = state.withLock { $0.groups[group]?.label } ?? "Session"
        return SecretServiceKeychain.Collection(name: Self.name, label: label, created: 0, modified: 0)
    }

    /// Relabels the collection of `group`.
    func relabel(_ label: String, for group: String) {
        state.withLock { $0.groups[group, default: Group()].label = label }
    }

    /// The items of `group` holding every pair of `attributes`, oldest first.
    func items(for group: String, matching attributes: [String: String]) -> [SecretServiceKeychain.StoredItem] {
        state.withLock { state in
            (state.groups[group]?.items.values ?? [:].values)
                .filter { SecretServiceAttributes($0.attributes).contains(attributes) }
                .sorted { $0.created == $1.created ? $0.id < $1.id : $0.created < $1.created }
        }
    }

    /// The item `id` of `group`, or `nil`.
    func item(_ id: String, for group: String) -> SecretServiceKeychain.StoredItem? {
        state.withLock { $0.groups[group]?.items[id] }
    }

    /// Stores a new item for `group`, or, with `replace`, changes the one whose attributes are exactly `attributes`;
    /// the item and whether it replaced one.
    func create(
        for group: String, label: String, attributes: [String: String], secret: SecureBytes, contentType: String,
        replace: Bool
    ) -> (item: SecretServiceKeychain.StoredItem, replaced: Bool) {
        let now = Self.now
        return state.withLock { state in
            if replace, var existing = state.groups[group]?.items.values.first(where: { $0.attributes == attributes }) {
                (existing.label, existing.secret, existing.contentType, existing.modified) =
                    (label, secret, contentType, now)
                state.groups[group, default: Group()].items[existing.id] = existing
                return (existing, true)
            }
            state.lastID += 1
            let item = SecretServiceKeychain.StoredItem(
                collection: Self.name, id: "s\(state.lastID)", label: label, attributes: attributes,
                contentType: contentType, created: now, modified: now, secret: secret)
            state.groups[group, default: Group()].items[item.id] = item
            return (item, false)
        }
    }

    /// Changes what is given of the item `id` of `group`.
    ///
    /// - Throws: `noSuchObject` when `group` has no such item.
    func update(
        _ id: String, for group: String, label: String?, attributes: [String: String]?, secret: SecureBytes?,
        contentType: String?
    ) throws(SecretServiceError) {
        let now = Self.now
        let found = state.withLock { state -> Bool in
            guard var item = state.groups[group]?.items[id] else { return false }
            if let label { item.label = label }
            if let attributes { item.attributes = attributes }
            if let secret { item.secret = secret }
            if let contentType { item.contentType = contentType }
            item.modified = now
            state.groups[group]?.items[id] = item
            return true
        }
        guard found else { throw SecretServiceError(.noSuchObject, "no such item") }
    }

    /// Deletes the item `id` of `group`.
    ///
    /// - Throws: `noSuchObject` when `group` has no such item.
    func delete(_ id: String, for group: String) throws(SecretServiceError) {
        let deleted = state.withLock { $0.groups[group]?.items.removeValue(forKey: id) != nil }
        guard deleted else { throw SecretServiceError(.noSuchObject, "no such item") }
    }

    /// The time now, in seconds since 1970 (the specification's Created and Modified).
    private static var now: UInt64 { UInt64(max(0, Date().timeIntervalSince1970)) }
}
