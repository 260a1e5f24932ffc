internal import ClavisCore
internal import ClavisSQLite

extension KeychainEngine {
    /// The attributes a locked item can be matched on: those its lookup digests stand for, and its protection
    /// class (a clear column). Every other attribute is sealed with the item.
    static let attributesMatchableWhileLocked = Set(AttributeSchema.indexed + [.accessible])

    /// The persistent references of the items `query` matches that cannot be opened because their protection class
    /// is closed, in insertion order and up to the query's limit, found without decrypting anything: by the row's
    /// clear columns (class, protection class, `sync`, reference) and its lookup digests (the query's attributes,
    /// Secret Service pairs and access groups).
    ///
    /// An attribute's keyed digest is 4 bytes, so a collision with another value's digest only adds a candidate (about
    /// one in four billion items per value asked for): a reference answered here names a row whose digests match the
    /// query's, which decrypting it could still rule out, and a Secret Service search while locked then lists one
    /// item too many as locked (unlocked, the search drops it). The access group's digest is 8 bytes, so such a row
    /// is still in one of the caller's groups, an item it could list anyway. Nothing else about a row is revealed
    /// (beyond the row id every reference carries, as the caller's own listings show it), and rows of open classes
    /// are left to `find`.
    ///
    /// - Throws: `param` for a query naming an attribute no digest stands for (it could only be checked against the
    ///   sealed attributes).
    func lockedReferences(_ query: ItemQuery) throws -> [PersistentReference] {
        let itemClass = query.itemClass
        guard itemClass.isStorable else { return [] }
        let wanted = try itemClass.normalized(query.attributes)
        if let unmatchable = wanted.keys.first(where: { !Self.attributesMatchableWhileLocked.contains($0) }) {
            throw KeychainError(
                .param, "a locked item cannot be matched on '\(unmatchable.rawValue)': it is sealed with the item")
        }
        let closed = ProtectionClass.allCases.filter { classKeys[$0] == nil }
        if closed.isEmpty { return [] }
        if let limit = query.limit.maximum, limit < 1 { return [] }
        var (conditions, values) = candidateConditions(query, attributes: wanted)
        conditions += " AND protection IN (\(Array(repeating: "?", count: closed.count).joined(separator: ", ")))"
        values += closed.map { .text($0.rawValue) }
        var sql = "SELECT reference FROM items WHERE \(conditions) ORDER BY id"
        if let limit = query.limit.maximum { sql += " LIMIT \(limit)" }
        return try connection.rows(sql, values).compactMap { row in
            row[0].blob.map { PersistentReference(itemClass: itemClass, stored: $0) }
        }
    }
}
