internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite
internal import FoundationEssentials

// The query planner: the statement that selects a query's candidate rows from what can be checked without
// decrypting (class, protection, `sync`, a persistent reference, primary-key and lookup digests).
extension KeychainEngine {
    /// SQLite's plan for the statement that selects `query`'s candidate rows.
    func explain(_ query: ItemQuery) throws -> [String] {
        let (sql, values, _) = candidateSelection(query, attributes: try query.itemClass.normalized(query.attributes))
        return try connection.rows("EXPLAIN QUERY PLAN " + sql, values).compactMap { $0.last?.text }
    }

    /// The statement that selects `query`'s candidate rows, in insertion order, and the primary keys it matches
    /// rows by, when it names a whole one.
    func candidateSelection(_ query: ItemQuery, attributes: [AttributeKey: AttributeValue]) -> (
        sql: String, values: [DatabaseValue], primaryKeys: [PrimaryKeyCandidate]?
    ) {
        if let selection = primaryKeySelection(query, attributes: attributes) { return selection }
        let (conditions, values) = candidateConditions(query, attributes: attributes)
        return ("SELECT \(ItemRow.columns) FROM items WHERE \(conditions) ORDER BY id", values, nil)
    }

    /// A lookup by a whole primary key, the most frequent one: its values (as `candidateConditions` orders them),
    /// and its text, built once per shape (the `sync` condition, a protection class or not, the number of keys).
    private func primaryKeySelection(_ query: ItemQuery, attributes: [AttributeKey: AttributeValue]) -> (
        sql: String, values: [DatabaseValue], primaryKeys: [PrimaryKeyCandidate]
    )? {
        guard let primaryKeys = primaryKeyCandidates(query, attributes: attributes) else { return nil }
        var values: [DatabaseValue] = []
        values.reserveCapacity(2 + primaryKeys.count)
        values.append(.text(query.itemClass.rawValue))
        let protection = attributes[.accessible]?.stringValue
        if let protection { values.append(.text(protection)) }
        for primaryKey in primaryKeys { values.append(.blob(primaryKey.digest)) }
        let synchronizable =
            switch query.synchronizable {
            case .no: 0
            case .yes: 1
            case .any: 2
            }
        let shape = primaryKeys.count * 8 + synchronizable * 2 + (protection == nil ? 0 : 1)
        if let sql = primaryKeySelections[shape] { return (sql, values, primaryKeys) }
        let (conditions, built) = candidateConditions(query, attributes: attributes)
        precondition(built == values, "a primary-key selection's values differ from its conditions'")
        let sql = "SELECT \(ItemRow.columns) FROM items WHERE \(conditions) ORDER BY id"
        primaryKeySelections[shape] = sql
        return (sql, values, primaryKeys)
    }

    /// The conditions that narrow the rows by the columns a query can be checked against without decrypting.
    func candidateConditions(_ query: ItemQuery, attributes: [AttributeKey: AttributeValue]) -> (
        String, [DatabaseValue]
    ) {
        var conditions = ["class = ?", "tombstone = 0"]
        var values: [DatabaseValue] = [.text(query.itemClass.rawValue)]
        switch query.synchronizable {
        case .no: conditions.append("sync = 0")
        case .yes: conditions.append("sync = 1")
        case .any: break
        }
        if let reference = query.persistentReference {
            if let stored = reference.stored(for: query.itemClass) {
                // The row it names, or else its entry in `items_reference`; either way the whole reference matches.
                conditions += [
                    "(id = ? OR (substr(reference, 1, 8) = ? AND \(Schema.referenceNotNamingRow)))", "reference = ?",
                ]
                values += [
                    PersistentReference.namedRow(stored).map { .integer($0) } ?? .null,
                    .blob(PersistentReference.indexKey(stored)), .blob(stored),
                ]
            } else {
                conditions.append("0")  // Another class's reference, or none of ours: no row holds it.
            }
        }
        if let protection = attributes[.accessible]?.stringValue {
            conditions.append("protection = ?")
            values.append(.text(protection))
        }
        if let primaryKeys = primaryKeyCandidates(query, attributes: attributes) {
            // The primary-key digests already bind the group, the `sync` value and every attribute a digest column
            // holds; the decrypted attributes (or a secret box bound to the digest) are checked anyway, so one digest
            // per candidate key is all it takes.
            conditions.append(
                "primary_digest IN (\(Array(repeating: "?", count: primaryKeys.count).joined(separator: ", ")))")
            values += primaryKeys.map { .blob($0.digest) }
            return (conditions.joined(separator: " AND "), values)
        }
        appendLookups(query, attributes: attributes, to: &conditions, &values)
        return (conditions.joined(separator: " AND "), values)
    }

    /// Appends the lookup-table conditions of a query that names no whole primary key: the most selective one
    /// drives (the rows SQLite starts from), the others are checked per candidate.
    private func appendLookups(
        _ query: ItemQuery, attributes: [AttributeKey: AttributeValue], to conditions: inout [String],
        _ values: inout [DatabaseValue]
    ) {
        // Only the most selective lookup may drive (the first indexed attribute, else the access groups, unless a
        // reference names the row); the others are checked per candidate, so SQLite never starts from a digest many
        // items share (one service for a whole app).
        let attributeIndexApplies =
            !query.secretServiceAttributes.isEmpty || AttributeSchema.indexed.contains { attributes[$0] != nil }
        if let groups = query.accessGroups {
            conditions.append(
                Self.lookup(
                    .accessGroup, count: groups.count,
                    drives: !attributeIndexApplies && query.persistentReference == nil))
            values += groups.map { .blob(digests.digest(of: .accessGroup, .string($0))) }
        }
        // A persistent reference names one row: it drives, and every attribute is checked per candidate (an
        // attribute many items share, a Secret Service collection's service, would otherwise be where the search
        // starts).
        var indexChosen = query.persistentReference != nil
        // An account names one item or few; a Secret Service attribute pair is next (every item of a collection
        // shares its service), then the other indexed attributes.
        func addLookup(_ key: AttributeKey) {
            guard let value = attributes[key] else { return }
            conditions.append(Self.lookup(key, count: 1, drives: !indexChosen))
            values.append(.blob(digests.digest(of: key, value)))
            indexChosen = true
        }
        let bySelectivity = AttributeSchema.indexed
        addLookup(bySelectivity[0])  // the account
        if !query.secretServiceAttributes.isEmpty {
            // Each distinct digest once: two pairs whose digests collide count as one, and the decrypted attributes
            // tell them apart.
            var pairDigests: [[UInt8]] = []
            for (name, value) in query.secretServiceAttributes {
                let digest = digests.digest(ofSecretServicePair: name, value)
                if !pairDigests.contains(digest) { pairDigests.append(digest) }
            }
            // The rarest pair drives and the others are checked per candidate: a pair every item of a schema
            // shares (`xdg:schema`) would otherwise cost one index entry per item on every search.
            for (position, digest) in rarestFirst(pairDigests).enumerated() {
                conditions.append(
                    Self.lookup(.secretServiceAttributes, count: 1, drives: !indexChosen && position == 0))
                values.append(.blob(digest))
            }
            indexChosen = true
        }
        for key in bySelectivity.dropFirst() { addLookup(key) }
    }

    /// The condition that a row is filed under one of `count` digests in `key`'s lookup table: the rows to start
    /// from when it `drives`, else a check of each candidate (a search of the table's key).
    private static func lookup(_ key: AttributeKey, count: Int, drives: Bool) -> String {
        let match =
            count == 1 ? "digest = ?" : "digest IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
        return drives
            ? "id IN (SELECT item FROM \(key.lookupTable) WHERE \(match))"
            : "EXISTS (SELECT 1 FROM \(key.lookupTable) WHERE \(match) AND item = items.id)"
    }

    /// Secret Service pair digests ordered by how many items hold each (counted up to `pairCountCap`, which is
    /// enough to tell a rare pair from a common one), then by their bytes, so one query always reads the same way.
    private func rarestFirst(_ pairDigests: [[UInt8]]) -> [[UInt8]] {
        guard pairDigests.count > 1 else { return pairDigests }
        let table = AttributeKey.secretServiceAttributes.lookupTable
        let counted = pairDigests.map { digest in
            // A failed count only costs the order: the search itself reports the database's error.
            let holders = try? connection.scalar(
                "SELECT count(*) FROM (SELECT 1 FROM \(table) WHERE digest = ? LIMIT \(Self.pairCountCap))",
                [.blob(digest)])
            return (digest, holders?.integer ?? Int64(Self.pairCountCap))
        }
        return counted.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.lexicographicallyPrecedes($1.0) }.map(\.0)
    }

    /// How far `rarestFirst` counts each pair's items.
    private static let pairCountCap = 64

    /// The primary keys a query can only match, when it names every primary-key attribute but the access group and
    /// `sync` and the groups it searches are known: one per group and `sync` value.
    private func primaryKeyCandidates(_ query: ItemQuery, attributes: [AttributeKey: AttributeValue])
        -> [PrimaryKeyCandidate]?
    {
        guard let groups = query.accessGroups, !groups.isEmpty, query.persistentReference == nil else { return nil }
        for key in query.itemClass.primaryKey where key != .accessGroup && key != .synchronizable {
            guard attributes[key] != nil else { return nil }
        }
        // Built in place (no intermediate arrays): this runs on every read by primary key.
        var candidates: [PrimaryKeyCandidate] = []
        candidates.reserveCapacity(query.synchronizable == .any ? 2 * groups.count : groups.count)
        for group in groups {
            for sync in [false, true] where query.synchronizable.admits(sync) {
                candidates.append(
                    PrimaryKeyCandidate(
                        digest: digests.primaryKeyDigest(
                            of: query.itemClass, attributes, accessGroup: .string(group), synchronizable: .bool(sync)),
                        accessGroup: group, isSynchronizable: sync))
            }
        }
        return candidates
    }
}
