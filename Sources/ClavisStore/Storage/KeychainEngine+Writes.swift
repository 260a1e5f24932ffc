internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite
internal import FoundationEssentials

// Adding and updating items: each sealed under a fresh item key into its row, filed under its lookup digests.
extension KeychainEngine {
    /// Stores `items` in one transaction, or answers what one of them needs first (an application password to
    /// seal it with, or its protection class opened) and stores none.
    func add(_ items: [NewItem]) throws -> ServiceAnswer<[Item]> {
        // Prepared before the transaction: an application password's key derivation takes about 100 ms, and other
        // processes must not wait for it.
        var prepared: [(item: Item, secret: PreparedSecret)] = []
        for newItem in items {
            let item = try prepareForAdd(newItem)
            let secret = try preparedSecret(of: item, applicationPassword: newItem.authentication?.applicationPassword)
            guard case .done(let preparedSecret) = secret else { return secret.need() }
            prepared.append((item, preparedSecret))
        }
        return try connection.transaction {
            // Every need is answered before the first row is written: an answer commits the transaction, so nothing
            // may have been written by then.
            for (item, _) in prepared {
                try checkPasscodeRequirements(of: item)
                guard try openClassKey(for: item.protection) != nil else { return .needsUnlock }
            }
            var stored: [Item] = []
            stored.reserveCapacity(prepared.count)
            for (item, secret) in prepared { stored.append(try insert(item, secret: secret)) }
            return .done(stored)
        }
    }

    private func prepareForAdd(_ newItem: NewItem) throws -> Item {
        let itemClass = newItem.itemClass
        guard itemClass.isStorable else {
            throw KeychainError(
                .unimplemented, "class \(itemClass.rawValue) is not stored: an identity is a certificate and a key")
        }
        guard newItem.secret.count <= KeychainLimits.secretBytes else {
            throw KeychainError(.dataTooLarge, "the secret is larger than \(KeychainLimits.secretBytes) bytes")
        }
        var attributes = try itemClass.normalized(newItem.attributes)
        let now = Date()
        attributes[.creationDate] = .date(now)
        attributes[.modificationDate] = .date(now)
        attributes[.accessGroup] = attributes[.accessGroup] ?? .string("")
        attributes[.synchronizable] = .bool(attributes[.synchronizable]?.boolValue ?? false)
        attributes[.accessible] = attributes[.accessible] ?? .string(ProtectionClass.default.rawValue)
        let item = Item(
            itemClass: itemClass, attributes: attributes, secret: newItem.secret,
            persistentReference: .drawn(for: itemClass))
        try checkConsistent(item)
        return item
    }

    /// Checks the rules that tie attributes together: the access control (valid for the class, naming the item's
    /// protection class). A synchronizable ThisDeviceOnly item is stored as Apple stores it, and never leaves the
    /// device.
    private func checkConsistent(_ item: Item) throws(KeychainError) {
        try AccessControl.carried(by: item.attributes)?.checkStored(with: item.itemClass, in: item.protection)
    }

    /// Refuses items that can exist only while the keychain has a passcode, when it has none (another process may
    /// have removed it, so the keybag is read again).
    private func checkPasscodeRequirements(of item: Item) throws {
        let accessControl = try AccessControl.carried(by: item.attributes)
        guard item.protection == .whenPasscodeSetThisDeviceOnly || accessControl?.requiresPasscode == true else {
            return
        }
        try keybag.refreshPasscodeState(connection)
        guard keybag.hasPasscode else {
            throw KeychainError(.notAvailable, "the item's protection or access control needs a keychain passcode")
        }
    }

    /// Seals `item` with `secret` (`nil` for a tombstone, which keeps only the attributes), inserts its row and
    /// returns the item as stored: its reference, drawn fresh for it, made to name its row
    /// (`PersistentReference.naming(row:)`, found without an index entry). Its protection class must be open.
    func insert(_ item: Item, secret: PreparedSecret?) throws -> Item {
        let rowID = try nextRowID()
        var item = item
        item.persistentReference = item.persistentReference.naming(row: rowID)
        let storedSecret = try secret?.stored(for: item.persistentReference)
        let values = try rowValues(item, storedSecret: storedSecret) + [.integer(rowID)]
        try changingItemRow(nil) {
            try connection.execute(Self.insertRow, values)
            return rowID
        }
        try insertLookups(of: item, rowID: rowID)
        return item
    }

    /// The id the next row takes, as SQLite would choose it (one past the largest), chosen before the row is sealed
    /// because its reference holds it. The caller is in a write transaction, so no other row can take it first.
    private func nextRowID() throws -> Int64 {
        precondition(connection.isInTransaction, "a row id is chosen inside the transaction that writes the row")
        // Past the largest id the sum is no longer an integer: SQLite would pick a free id at random, and a
        // keychain that used nine quintillion ids answers that it has no room.
        guard let next = try connection.scalar("SELECT coalesce(max(id), 0) + 1 FROM items")?.integer else {
            throw KeychainError(.allocate, "the keychain has used every row id")
        }
        return next
    }

    /// Seals `item` (which was `old`) again under a fresh item key into the row `rowID`, keeping its place in
    /// insertion order.
    private func replace(rowID: Int64, old: Item, with item: Item, storedSecret: SecureBytes) throws {
        let values = try rowValues(item, storedSecret: storedSecret) + [.integer(rowID)]
        try changingItemRow(rowID) {
            try connection.execute(Self.updateRow, values)
            return rowID
        }
        try deleteLookups(of: old, rowID: rowID)
        try insertLookups(of: item, rowID: rowID)
    }

    /// Files the row `rowID` under its lookup digests.
    private func insertLookups(of item: Item, rowID: Int64) throws {
        for (key, digest) in RowDigests(itemClass: item.itemClass, attributes: item.attributes, digests: digests)
            .lookups
        {
            try connection.execute(key.lookupStatements.insert, [.blob(digest), .integer(rowID)])
        }
    }

    /// Removes the lookup entries of the row `rowID`, whose decrypted attributes are `item`'s.
    func deleteLookups(of item: Item, rowID: Int64) throws {
        for (key, digest) in RowDigests(itemClass: item.itemClass, attributes: item.attributes, digests: digests)
            .lookups
        {
            try connection.execute(key.lookupStatements.delete, [.blob(digest), .integer(rowID)])
        }
    }

    /// The item's secret ready to be stored: with its application password's layer (the key derived) when its access
    /// control has `applicationPassword`.
    ///
    /// When none is given, the answer names the password as needed (to be chosen: `.seal`).
    private func preparedSecret(of item: Item, applicationPassword: SecureBytes?) throws -> ServiceAnswer<
        PreparedSecret
    > {
        let secret = item.secret ?? SecureBytes([])
        guard let accessControl = try AccessControl.carried(by: item.attributes), accessControl.usesApplicationPassword
        else { return .done(PreparedSecret(secret: secret, passwordLayer: nil)) }
        guard let applicationPassword else {
            return .needsAuthentication(accessControl.applicationPasswordPart, .seal)
        }
        let layer = try ApplicationPasswordSealer.layer(password: applicationPassword, kdf: freshKDF())
        return .done(PreparedSecret(secret: secret, passwordLayer: layer))
    }

    private static let writableColumns =
        [
            "class", "reference", "protection", "sync", "tombstone", "primary_digest", "wrapped_key", "attributes",
            "secret", "sealing",
        ]

    /// The statement inserting a row's `writableColumns` and then its id, built once rather than on every add (with
    /// the lookup statements, building the text took about a tenth of an add's instructions).
    private static let insertRow =
        "INSERT INTO items (\(writableColumns.joined(separator: ", ")), id) VALUES ("
        + Array(repeating: "?", count: writableColumns.count + 1).joined(separator: ", ") + ")"

    /// The statement rewriting the `writableColumns` of the row whose id is bound last, built once.
    private static let updateRow =
        "UPDATE items SET \(writableColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    /// The values of `writableColumns` for `item`: its primary-key digest and its sealed parts.
    private func rowValues(_ item: Item, storedSecret: SecureBytes?) throws -> [DatabaseValue] {
        // Each write answers `.needsUnlock` before it starts, and a tombstone is in the class of an item just read.
        guard let classKey = try openClassKey(for: item.protection) else {
            preconditionFailure("an item is sealed only into a protection class found open")
        }
        let primaryDigest = digests.primaryKeyDigest(of: item.itemClass, item.attributes)
        let binding = RowBinding(
            itemClass: item.itemClass, protection: item.protection, persistentReference: item.persistentReference,
            isSynchronizable: item.isSynchronizable,
            format: .newest(accessControlled: item.attributes[.accessControl] != nil), primaryDigest: primaryDigest)
        let sealed = try sealer.seal(
            attributes: item.attributes, secret: storedSecret ?? SecureBytes([]), binding: binding, classKey: classKey)
        guard let storedReference = item.persistentReference.stored(for: item.itemClass) else {
            preconditionFailure("an item's persistent reference starts with its class")
        }
        return [
            .text(item.itemClass.rawValue), .blob(storedReference), .text(item.protection.rawValue),
            .integer(item.isSynchronizable ? 1 : 0), .integer(storedSecret == nil ? 1 : 0), .blob(primaryDigest),
            .blob(sealed.salt), .blob(sealed.attributes), .blob(sealed.secret), .integer(binding.format.rawValue),
        ]
    }

    /// Applies `changes` to every item `query` matches in one transaction and names them, or answers what one of
    /// them needs first (its access control satisfied, its class opened, a password to seal it with) and changes
    /// none.
    func update(_ query: ItemQuery, with changes: ItemChanges) throws -> ServiceAnswer<[PersistentReference]> {
        var changedAttributes = try query.itemClass.normalized(changes.attributes)
        changedAttributes[.creationDate] = nil
        changedAttributes[.modificationDate] = nil
        if let secret = changes.secret, secret.count > KeychainLimits.secretBytes {
            throw KeychainError(.dataTooLarge, "the secret is larger than \(KeychainLimits.secretBytes) bytes")
        }
        return try connection.transaction {
            let matched = try matches(for: query, loadingSecrets: true, guard: .use)
            guard case .done(let found) = matched else { return matched.need() }
            let now = Date()
            // Every item is checked and sealed before the first row is written: an answer commits the transaction,
            // so nothing may have been written by then.
            var replacements: [(rowID: Int64, old: Item, updated: Item, storedSecret: SecureBytes)] = []
            for (rowID, old) in found {
                var updated = old
                updated.attributes.merge(changedAttributes) { _, new in new }
                updated.attributes[.modificationDate] = .date(now)
                updated.secret = changes.secret ?? old.secret
                try checkConsistent(updated)
                try checkPasscodeRequirements(of: updated)
                let secret = try preparedSecret(
                    of: updated, applicationPassword: query.authentication?.applicationPassword)
                guard case .done(let preparedSecret) = secret else { return secret.need() }
                guard try openClassKey(for: updated.protection) != nil else { return .needsUnlock }
                replacements.append((rowID, old, updated, try preparedSecret.stored(for: updated.persistentReference)))
            }
            for (rowID, old, updated, storedSecret) in replacements {
                if old.isSynchronizable,
                    digests.primaryKeyDigest(of: old.itemClass, old.attributes)
                        != digests.primaryKeyDigest(of: updated.itemClass, updated.attributes)
                {
                    try insertTombstone(for: old)
                }
                try replace(rowID: rowID, old: old, with: updated, storedSecret: storedSecret)
            }
            return .done(found.map { $0.item.persistentReference })
        }
    }

    /// Records that a synchronizable item's primary key went away: its attributes under a new reference (naming
    /// the tombstone's row), no secret.
    func insertTombstone(for item: Item) throws {
        var tombstone = item
        tombstone.persistentReference = .drawn(for: item.itemClass)
        tombstone.attributes[.modificationDate] = .date(Date())
        _ = try insert(tombstone, secret: nil)
    }
}
