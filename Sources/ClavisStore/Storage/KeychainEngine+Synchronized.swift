internal import ClavisCore
internal import ClavisSQLite
internal import FoundationEssentials

// The items that leave the device, as sync reads and writes them: every group's, tombstones too, with the
// modification times they were made at.
extension KeychainEngine {
    /// Every row with `sync` set whose class may leave the device and is open now, and that has no access control
    /// (such an item stays on the device that made it), opened: items with their secrets, tombstones without. For
    /// one primary key, only the newest row (by modification time) is given.
    func synchronizedItems() throws -> [Item] {
        var newest: [[UInt8]: Item] = [:]
        let columns = ItemRow.columns + ", class, tombstone"
        try connection.forEachRow("SELECT \(columns) FROM items WHERE sync = 1 ORDER BY id", []) { row in
            guard let itemClass = row.text(9).flatMap(ItemClass.init(rawValue:)), let tombstone = row[10].integer,
                let candidate = try? ItemRow(row: row, itemClass: itemClass),
                !candidate.binding.protection.isThisDeviceOnly,
                let classKey = try openClassKey(for: candidate.binding.protection)
            else { return true }
            do {
                let itemKey = try sealer.itemKey(
                    storedKey: candidate.storedKey, classKey: classKey, binding: candidate.binding)
                var attributes = try sealer.openAttributes(
                    ItemRow.sealedAttributes(of: row), itemKey: itemKey, binding: candidate.binding)
                guard attributes[.accessControl] == nil else { return true }
                attributes[.synchronizable] = .bool(true)
                attributes[.accessible] = .string(candidate.binding.protection.rawValue)
                let secret =
                    tombstone == 0
                    ? try sealer.openSecret(candidate.sealedSecret, itemKey: itemKey, binding: candidate.binding) : nil
                let item = Item(
                    itemClass: itemClass, attributes: attributes, secret: secret,
                    persistentReference: candidate.binding.persistentReference)
                let key = candidate.binding.primaryDigest
                if let kept = newest[key], Self.modified(kept) > Self.modified(item) { return true }
                newest[key] = item
            } catch {
                // A damaged row is passed over, as a search passes over it.
            }
            return true
        }
        return newest.values.sorted { Self.modified($0) < Self.modified($1) }
    }

    /// Puts `item` (its attributes as another device made them, modification time included; `secret` `nil` for a
    /// tombstone) in place of every row of its class with its primary key, tombstones included, in one transaction;
    /// `.needsUnlock` while its class is closed.
    ///
    /// - Throws: `param` for an item that does not sync (no `sync`, or a class that never leaves the device).
    func storeSynchronized(_ item: Item, secret: SecureBytes?) throws -> ServiceAnswer<Void> {
        guard item.isSynchronizable, !item.protection.isThisDeviceOnly, item.itemClass.isStorable else {
            throw KeychainError(.param, "a synchronized item has sync set and a class that leaves the device")
        }
        var attributes = try item.itemClass.normalized(item.attributes)
        attributes[.accessGroup] = attributes[.accessGroup] ?? .string("")
        attributes[.accessControl] = nil
        return try connection.transaction {
            guard try openClassKey(for: item.protection) != nil else { return .needsUnlock }
            let digest = digests.primaryKeyDigest(of: item.itemClass, attributes)
            // The rows it replaces go with their lookups (a rare path: each lookup table is searched by row).
            let replaced = try connection.rows(
                "SELECT id FROM items WHERE class = ? AND sync = 1 AND primary_digest = ?",
                [.text(item.itemClass.rawValue), .blob(digest)]
            ).compactMap { $0[0].integer }
            for rowID in replaced { try deleteRowUnread(rowID) }
            let stored = Item(
                itemClass: item.itemClass, attributes: attributes, secret: secret,
                persistentReference: .drawn(for: item.itemClass))
            _ = try insert(stored, secret: secret.map { PreparedSecret(secret: $0, passwordLayer: nil) })
            return .done(())
        }
    }

    /// The modification time of `item`, or the distant past.
    private static func modified(_ item: Item) -> Date {
        if case .date(let date)? = item.attributes[.modificationDate] { return date }
        return .distantPast
    }
}
