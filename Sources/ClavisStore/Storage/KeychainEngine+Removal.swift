internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite
internal import FoundationEssentials

// Deleting items: those a query matches, a damaged one by its reference, or every item of a removed app's groups.
extension KeychainEngine {
    /// Deletes every item `query` matches in one transaction and names them, or answers what one of them needs
    /// first (its access control satisfied, its class opened) and deletes none.
    func delete(_ query: ItemQuery) throws -> ServiceAnswer<[PersistentReference]> {
        try connection.transaction {
            let matched: ServiceAnswer<[Match]>
            do {
                matched = try matches(for: query, loadingSecrets: false, guard: .delete)
            } catch let error as KeychainError where error.code == .decode && query.persistentReference != nil {
                return .done(try deleteUnreadable(query) > 0 ? query.persistentReference.map { [$0] } ?? [] : [])
            }
            // A need is found before anything is written, so answering it leaves the keychain as it was.
            guard case .done(let found) = matched else { return matched.need() }
            for (rowID, item) in found {
                try deleteItemRows(where: "id = ?", [.integer(rowID)])
                try deleteLookups(of: item, rowID: rowID)
                if item.isSynchronizable { try insertTombstone(for: item) }
            }
            return .done(found.map { $0.item.persistentReference })
        }
    }

    /// Removes a damaged item named by its persistent reference without reading it: nothing can ever open it, and
    /// it must not block a new item. The reference, class and the caller's groups still select the row.
    private func deleteUnreadable(_ query: ItemQuery) throws -> Int {
        let (conditions, values) = candidateConditions(query, attributes: [:])
        let rowIDs = try connection.rows("SELECT id FROM items WHERE \(conditions)", values).compactMap {
            $0[0].integer
        }
        for rowID in rowIDs { try deleteRowUnread(rowID) }
        return rowIDs.count
    }

    /// Removes every item of `groups` (tombstones too) without reading or authenticating any: the items of an app
    /// that was removed for good, whose access control and protection class no longer matter. How many items (not
    /// counting tombstones) went.
    func deleteAccessGroups(_ groups: [String]) throws -> Int {
        guard !groups.isEmpty else { return 0 }
        let placeholders = Array(repeating: "?", count: groups.count).joined(separator: ", ")
        let values = groups.map { DatabaseValue.blob(digests.digest(of: .accessGroup, .string($0))) }
        return try connection.transaction {
            let rows = try connection.rows(
                """
                SELECT id, tombstone FROM items
                WHERE id IN (SELECT item FROM \(AttributeKey.accessGroup.lookupTable) WHERE digest IN (\(placeholders)))
                """, values)
            for row in rows {
                if let rowID = row[0].integer { try deleteRowUnread(rowID) }
            }
            return rows.filter { $0[1].integer == 0 }.count
        }
    }

    /// Deletes the row `rowID` and its lookups without reading it.
    func deleteRowUnread(_ rowID: Int64) throws {
        try deleteItemRows(where: "id = ?", [.integer(rowID)])
        // Its digests cannot be computed without its attributes: each lookup table is searched by row (a scan,
        // on these rare paths).
        for key in AttributeSchema.withLookupTables {
            try connection.execute("DELETE FROM \(key.lookupTable) WHERE item = ?", [.integer(rowID)])
        }
    }
}
