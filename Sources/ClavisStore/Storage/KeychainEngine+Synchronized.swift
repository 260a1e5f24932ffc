internal import ClavisCore
internal import ClavisSQLite
internal import FoundationEssentials

// The items that leave the device, as sync reads and writes them: every group's, tombstones too, with the
// modification times they were made at.
extension KeychainEngine {
    /// Every primary key whose `sync` rows all can leave the device and be read now, as its newest row (by
    /// modification time), opened: an item with its secret, or a tombstone without. A key with any row that stays
    /// on this device (a `ThisDeviceOnly` class, an access control), is in a closed class or is damaged is left out
    /// whole, so that an older row of it never speaks for one that cannot be read (sync takes an absent key as
    /// unchanged, never as deleted).
    func synchronizedItems() throws -> [Item] {
        var newest: [[UInt8]: Item] = [:]
        var withheld: Set<[UInt8]> = []
        try forEachSynchronizedRow { candidate, row, isTombstone in
            let key = candidate.binding.primaryDigest
            guard let item = try? syncedItem(candidate, row: row, openingSecret: !isTombstone) else {
                withheld.insert(key)
                return
            }
            if let kept = newest[key], Self.modified(kept) > Self.modified(item) { return }
            newest[key] = item
        }
        return newest.filter { !withheld.contains($0.key) }.values.sorted { Self.modified($0) < Self.modified($1) }
    }

    /// Walks the `sync` rows `condition` selects (every one by default), in row order, each with its decoded columns
    /// and whether it is a tombstone; a row whose class or columns do not decode is passed over.
    private func forEachSynchronizedRow(
        where condition: String = "1", _ body: (ItemRow, Row, _ isTombstone: Bool) throws -> Void
    ) throws {
        let columns = ItemRow.columns + ", class, tombstone"
        try connection.forEachRow("SELECT \(columns) FROM items WHERE sync = 1 AND \(condition) ORDER BY id", []) {
            row in
            guard let itemClass = row.text(9).flatMap(ItemClass.init(rawValue:)), let tombstone = row[10].integer,
                let candidate = try? ItemRow(row: row, itemClass: itemClass)
            else { return true }
            try body(candidate, row, tombstone != 0)
            return true
        }
    }

    /// The item of a `sync` row as it leaves the device, with its secret when `openingSecret` (a tombstone has
    /// none); `nil` for one that stays (a `ThisDeviceOnly` class, an access control) or cannot be read now (its class
    /// closed).
    ///
    /// - Throws: for a damaged row.
    private func syncedItem(_ candidate: ItemRow, row: Row, openingSecret: Bool) throws -> Item? {
        let binding = candidate.binding
        guard !binding.protection.isThisDeviceOnly, let classKey = try openClassKey(for: binding.protection) else {
            return nil
        }
        let itemKey = try sealer.itemKey(storedKey: candidate.storedKey, classKey: classKey, binding: binding)
        var attributes = try sealer.openAttributes(
            ItemRow.sealedAttributes(of: row), itemKey: itemKey, binding: binding)
        guard attributes[.accessControl] == nil else { return nil }
        attributes[.synchronizable] = .bool(true)
        attributes[.accessible] = .string(binding.protection.rawValue)
        let secret =
            openingSecret ? try sealer.openSecret(candidate.sealedSecret, itemKey: itemKey, binding: binding) : nil
        return Item(
            itemClass: binding.itemClass, attributes: attributes, secret: secret,
            persistentReference: binding.persistentReference)
    }

    /// Puts `item` (its attributes as another device made them, modification time included; `secret` `nil` for a
    /// tombstone) in place of every `sync` row of its class with its primary key, tombstones included, in one
    /// transaction. A key this device holds in a row that stays on it (a `ThisDeviceOnly` class, an access control)
    /// keeps that row: the change is not applied; nor is it over a row changed here later than `item` was (a write
    /// made during the round that read the change, which goes out in the next). `.needsUnlock` while the item's
    /// class, or a replaced row's, is closed.
    ///
    /// - Throws: `param` for an item that does not sync or whose dates are not times, `dataTooLarge` for a secret
    ///   over the limit.
    func storeSynchronized(_ item: Item, secret: SecureBytes?) throws -> ServiceAnswer<Void> {
        guard item.isSynchronizable, !item.protection.isThisDeviceOnly, item.itemClass.isStorable else {
            throw KeychainError(.param, "a synchronized item has sync set and a class that leaves the device")
        }
        if let secret, secret.count > KeychainLimits.secretBytes {
            throw KeychainError(.dataTooLarge, "the secret is larger than \(KeychainLimits.secretBytes) bytes")
        }
        for key in [AttributeKey.creationDate, .modificationDate] {
            if case .date(let date)? = item.attributes[key], !Self.isTime(date) {
                throw KeychainError(.param, "attribute '\(key.rawValue)' of a synchronized item is not a time")
            }
        }
        var attributes = try item.itemClass.normalized(item.attributes)
        attributes[.accessGroup] = attributes[.accessGroup] ?? .string("")
        attributes[.accessControl] = nil
        return try connection.transaction {
            guard try openClassKey(for: item.protection) != nil else { return .needsUnlock }
            let digest = digests.primaryKeyDigest(of: item.itemClass, attributes)
            var replaced: [Int64] = []
            var stays = false
            var closed = false
            let key: [DatabaseValue] = [.text(item.itemClass.rawValue), .blob(digest)]
            var newerHere = false
            try connection.forEachRow(Self.synchronizedRowsOfKey, key + key) { row in
                guard let candidate = try? ItemRow(row: row, itemClass: item.itemClass) else { return true }
                replaced.append(candidate.id)
                let live = row[10].integer == 0
                if live && candidate.binding.protection.isThisDeviceOnly {
                    stays = true
                } else if try openClassKey(for: candidate.binding.protection) == nil {
                    closed = closed || live
                } else if let here = try? syncedItem(candidate, row: row, openingSecret: false) {
                    // A change made here after sync last looked (a write or a delete during the round) is newer:
                    // it stays, and goes out in the next round.
                    newerHere = newerHere || Self.modified(here) > Self.modified(item)
                } else if live {
                    // Open, leaving the device, yet no item: it has an access control (its attributes say so; its
                    // secret is not opened).
                    stays = true
                }
                return true
            }
            if stays || newerHere { return .done(()) }
            if closed { return .needsUnlock }
            // The rows it replaces go with their lookups (each lookup table searched by row).
            for rowID in replaced { try deleteRowUnread(rowID) }
            let stored = Item(
                itemClass: item.itemClass, attributes: attributes, secret: secret,
                persistentReference: .drawn(for: item.itemClass))
            _ = try insert(stored, secret: secret.map { PreparedSecret(secret: $0, passwordLayer: nil) })
            return .done(())
        }
    }

    /// The `sync` rows of a class (first parameter) and primary key digest (second), the pair given twice, the
    /// columns `ItemRow` reads then class and tombstone: the live row through `items_primary_key`, the tombstones
    /// through `items_tombstones` (so that no change applied reads every row).
    static let synchronizedRowsOfKey = {
        let columns = ItemRow.columns + ", class, tombstone"
        let matching = "class = ? AND sync = 1 AND primary_digest = ?"
        return """
            SELECT \(columns) FROM items WHERE \(matching) AND tombstone = 0
            UNION ALL SELECT \(columns) FROM items WHERE \(matching) AND \(Schema.tombstoneRow)
            """
    }()

    /// Removes the tombstones of items that sync (`synchronizedItems` lists them) deleted before `cutoff`, in open
    /// classes: once every device has let go of a delete (`SyncEngine.tombstoneLifetime`), its row has no use. How
    /// many went.
    func removeSynchronizedTombstones(deletedBefore cutoff: Date) throws -> Int {
        try connection.transaction {
            var expired: [Int64] = []
            try forEachSynchronizedRow(where: Schema.tombstoneRow) { candidate, row, _ in
                guard let item = try? syncedItem(candidate, row: row, openingSecret: false) else { return }
                if Self.modified(item) < cutoff { expired.append(candidate.id) }
            }
            for rowID in expired { try deleteRowUnread(rowID) }
            return expired.count
        }
    }

    /// `storeSynchronized` for each of `items` in order, in one transaction (one flush for them all), each a part of
    /// it undone alone when it fails. Returns the outcome of each item stored (`nil`) or refused for good (an error
    /// `refusingForGood` accepts), and why it stopped before the others, if it did: the first item that cannot be
    /// stored now (its class closed, another error); what came before it stays stored.
    func storeSynchronized(
        _ items: [(item: Item, secret: SecureBytes?)], refusingForGood: (KeychainError) -> Bool
    ) throws -> (outcomes: [KeychainError?], stopped: KeychainError?) {
        try connection.transaction {
            var outcomes: [KeychainError?] = []
            for (item, secret) in items {
                do {
                    guard case .done = try connection.savepoint({ try storeSynchronized(item, secret: secret) }) else {
                        return (
                            outcomes,
                            KeychainError(
                                .interactionNotAllowed, "the keychain is locked: the change is applied once it opens")
                        )
                    }
                    outcomes.append(nil)
                } catch let error as KeychainError where connection.isInTransaction && refusingForGood(error) {
                    outcomes.append(error)
                } catch let error as KeychainError where connection.isInTransaction {
                    return (outcomes, error)
                }
                // Any other failure, and any after which SQLite rolled back the whole transaction (a full disk),
                // goes up: nothing of the batch is kept, and the caller hears why.
            }
            return (outcomes, nil)
        }
    }

    /// True for a date a keychain can hold: finite, and within some 290,000 years of 1970 (milliseconds fit in 64
    /// bits).
    private static func isTime(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && abs(seconds) < 9e12
    }

    /// The modification time of `item`, or the distant past.
    private static func modified(_ item: Item) -> Date {
        if case .date(let date)? = item.attributes[.modificationDate] { return date }
        return .distantPast
    }
}
