import ClavisCore
import ClavisCrypto
import ClavisSQLite
import FoundationEssentials

extension KeychainEngine {
    // MARK: Add

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
        if let accessControl = try Self.accessControl(of: item.attributes) {
            try accessControl.validate(for: item.itemClass)
            guard accessControl.protection == item.protection else {
                throw KeychainError(.param, "the access control's protection class differs from the item's")
            }
            if accessControl.constraints.contains(.biometryCurrentSet) && accessControl.boundBiometryEnrolment == nil {
                throw KeychainError(.notAvailable, "biometryCurrentSet needs an enrolled biometric set to bind to")
            }
        }
    }

    /// Refuses items that can exist only while the keychain has a passcode, when it has none (another process may
    /// have removed it, so the keybag is read again).
    private func checkPasscodeRequirements(of item: Item) throws {
        let accessControl = try Self.accessControl(of: item.attributes)
        guard item.protection == .whenPasscodeSetThisDeviceOnly || accessControl?.requiresPasscode == true else {
            return
        }
        try keybag.refreshPasscodeState(connection)
        guard keybag.hasPasscode else {
            throw KeychainError(.notAvailable, "the item's protection or access control needs a keychain passcode")
        }
    }

    /// The access control stored in `accc`, if any.
    static func accessControl(of attributes: [AttributeKey: AttributeValue]) throws(KeychainError) -> AccessControl? {
        guard let value = attributes[.accessControl] else { return nil }
        guard case .data(let encoded) = value else { throw KeychainError(.param, "attribute 'accc' must be data") }
        do {
            return try AccessControl(encoded: encoded)
        } catch {
            throw KeychainError(.param, "attribute 'accc' is not an access control")
        }
    }

    /// Seals `item` with `secret` (`nil` for a tombstone, which keeps only the attributes), inserts its row and
    /// returns the item as stored: its reference, drawn fresh for it, made to name its row
    /// (`PersistentReference.naming(row:)`, found without an index entry). Its protection class must be open.
    private func insert(_ item: Item, secret: PreparedSecret?) throws -> Item {
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
    private func deleteLookups(of item: Item, rowID: Int64) throws {
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
        guard let accessControl = try Self.accessControl(of: item.attributes), accessControl.usesApplicationPassword
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

    // MARK: Find

    /// The items `query` matches, or what reading one of them needs first.
    func find(_ query: ItemQuery) throws -> ServiceAnswer<[Item]> {
        try matches(
            for: query, loadingSecrets: query.returnsSecret, guard: query.returnsSecret ? .use : nil,
            passingUnreadableRows: true, secretsOnly: query.returnsSecret && !query.returnsAttributes
        ).map { $0.map(\.item) }
    }

    /// A matched item and its row.
    private typealias Match = (rowID: Int64, item: Item)

    /// The items a query matches, each with its row id, in insertion order and up to the query's limit; or what
    /// the operation needs first, found at the first row that needs it (the search stops there).
    ///
    /// With a `guard` (reading secrets, updating, deleting), an item whose access control the query's proof does
    /// not satisfy answers that policy, or is left out under `UnauthenticatedItemPolicy.skip`.
    ///
    /// A candidate row that cannot be read (its class is closed, or its data was altered) answers `.needsUnlock` or
    /// fails the query, unless `passingUnreadableRows` (searches): then it is passed over, so one locked or damaged
    /// item does not hide every other, and its answer or error is given only when nothing else matched.
    ///
    /// With `secretsOnly` (a search whose caller takes secrets, not attributes), a read by whole primary key opens
    /// only the secret of a row sealed with its primary-key digest (`SealingFormat.primaryKeyBound`), and its item
    /// holds the attributes `secretOnlyItem` names.
    private func matches(
        for query: ItemQuery, loadingSecrets: Bool, guard operation: GuardedOperation?,
        passingUnreadableRows: Bool = false, secretsOnly: Bool = false
    ) throws -> ServiceAnswer<[Match]> {
        let itemClass = query.itemClass
        // No item of a class the store cannot hold yet exists, so a search finds none (as Apple's keychain answers
        // an app's sign-out loop over every class).
        guard itemClass.isStorable else { return .done([]) }
        let wanted = try itemClass.normalized(query.attributes)
        if let limit = query.limit.maximum, limit < 1 { return .done([]) }
        let (sql, values, primaryKeys) = candidateSelection(query, attributes: wanted)
        // The statement matched the row's digest to one of these keys, and its protection when the query names one;
        // nothing else the query names needs checking. A group or `sync` among the attributes (the digests take
        // them from the query's own fields) is checked against the decrypted attributes.
        // Passwords only: a key's or certificate's answer depends on its other attributes (a key a token holds is
        // answered with its public key alone).
        let secretOnlyKeys =
            secretsOnly && (itemClass == .genericPassword || itemClass == .internetPassword)
                && query.secretServiceAttributes.isEmpty
                && wanted.keys.allSatisfy({ key in
                    key == .accessible
                        || (key != .accessGroup && key != .synchronizable && itemClass.primaryKey.contains(key))
                })
            ? primaryKeys : nil
        let proof = query.authentication?.accepted(by: keybag.identity)
        var found: [Match] = []
        // What a row needs before the operation can go on: the search stops at it and answers it.
        var pending: ServiceAnswer<[Match]>?
        // The first row passed over as unreadable: what the search answers, or throws, when nothing else matched.
        var unreadable: Result<ServiceAnswer<[Match]>, KeychainError>?
        try connection.forEachRow(sql, values) { row in
            let candidate = try ItemRow(row: row, itemClass: itemClass)
            let itemKey: SecureBytes
            let attributes: [AttributeKey: AttributeValue]
            do {
                guard let classKey = try openClassKey(for: candidate.binding.protection) else {
                    guard passingUnreadableRows else {
                        pending = .needsUnlock
                        return false
                    }
                    unreadable = unreadable ?? .success(.needsUnlock)
                    return true
                }
                itemKey = try sealer.itemKey(
                    storedKey: candidate.storedKey, classKey: classKey, binding: candidate.binding)
                if let secretOnlyKeys, let primaryKey = candidate.primaryKey(among: secretOnlyKeys) {
                    let secret = try sealer.openSecret(
                        candidate.sealedSecret, itemKey: itemKey, binding: candidate.binding)
                    found.append(
                        (candidate.id, Self.secretOnlyItem(candidate, primaryKey, wanted: wanted, secret: secret)))
                    return query.limit.maximum.map { found.count < $0 } ?? true
                }
                attributes = try sealer.openAttributes(
                    ItemRow.sealedAttributes(of: row), itemKey: itemKey, binding: candidate.binding)
            } catch let error as KeychainError where passingUnreadableRows {
                unreadable = unreadable ?? .failure(error)
                return true
            }
            guard Self.attributes(attributes, of: itemClass, match: wanted, query: query) else { return true }
            if let operation {
                let admission = try Self.admits(attributes, proof: proof, query: query, for: operation)
                guard case .done(let admitted) = admission else {
                    pending = admission.need()
                    return false
                }
                if !admitted { return true }
            }
            var secret: SecureBytes?
            if loadingSecrets {
                let opened = try openSecret(
                    of: candidate, itemKey: itemKey, attributes: attributes, query: query, proof: proof)
                guard case .done(let openedSecret) = opened else {
                    pending = opened.need()
                    return false
                }
                guard let openedSecret else { return true }
                secret = openedSecret
            }
            found.append(
                (
                    candidate.id,
                    Item(
                        itemClass: itemClass, attributes: attributes, secret: secret,
                        persistentReference: candidate.binding.persistentReference)
                ))
            return query.limit.maximum.map { found.count < $0 } ?? true
        }
        if let pending { return pending }
        if found.isEmpty, let unreadable { return try unreadable.get() }
        return .done(found)
    }

    /// The item a secrets-only read answers for a row it matched by primary key: the attributes the query named,
    /// the group and `sync` of the primary key matched, the row's protection, and the secret.
    private static func secretOnlyItem(
        _ row: ItemRow, _ primaryKey: PrimaryKeyCandidate, wanted: [AttributeKey: AttributeValue], secret: SecureBytes
    ) -> Item {
        var attributes = [AttributeKey: AttributeValue](minimumCapacity: wanted.count + 3)
        attributes.merge(wanted) { _, named in named }
        attributes[.accessGroup] = .string(primaryKey.accessGroup)
        attributes[.synchronizable] = .bool(primaryKey.isSynchronizable)
        attributes[.accessible] = .string(row.binding.protection.rawValue)
        return Item(
            itemClass: row.binding.itemClass, attributes: attributes, secret: secret,
            persistentReference: row.binding.persistentReference)
    }

    /// Opens a row's secret, and its application-password layer when its access control has one; `.done(nil)` when
    /// the query's password does not open it and the query skips what it cannot open. Without a password, the
    /// answer names the item's policy as needed.
    ///
    /// - Throws: `authFailed` when the given password is wrong, naming the item's policy as pending so that the
    ///   caller may ask again: a failure, which the caller reports or retries.
    private func openSecret(
        of row: ItemRow, itemKey: SecureBytes, attributes: [AttributeKey: AttributeValue], query: ItemQuery,
        proof: AuthenticationProof?
    ) throws -> ServiceAnswer<SecureBytes?> {
        let secret = try sealer.openSecret(row.sealedSecret, itemKey: itemKey, binding: row.binding)
        guard let accessControl = try Self.accessControl(of: attributes), accessControl.usesApplicationPassword else {
            return .done(secret)
        }
        guard let password = proof?.applicationPassword else { return .needsAuthentication(accessControl, .open) }
        do {
            return .done(
                try ApplicationPasswordSealer.open(
                    secret, password: password, reference: row.binding.persistentReference))
        } catch let error as KeychainError where error.code == .authFailed {
            if query.unauthenticatedItems == .skip { return .done(nil) }
            throw KeychainError(.authFailed, error.reason, pendingAccessControl: accessControl)
        }
    }

    /// SQLite's plan for the statement that selects `query`'s candidate rows.
    func explain(_ query: ItemQuery) throws -> [String] {
        let (sql, values, _) = candidateSelection(query, attributes: try query.itemClass.normalized(query.attributes))
        return try connection.rows("EXPLAIN QUERY PLAN " + sql, values).compactMap { $0.last?.text }
    }

    /// The statement that selects `query`'s candidate rows, in insertion order, and the primary keys it matches
    /// rows by, when it names a whole one.
    private func candidateSelection(_ query: ItemQuery, attributes: [AttributeKey: AttributeValue]) -> (
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
        // Only the most selective lookup may drive (the first indexed attribute, else the access groups, unless a
        // reference names the row); the others are checked per candidate, so SQLite never starts from a digest many
        // items share (one service for a whole app).
        let attributeIndexApplies =
            !query.secretServiceAttributes.isEmpty || AttributeKey.indexed.contains { attributes[$0] != nil }
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
        let bySelectivity = AttributeKey.indexedBySelectivity
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
        return (conditions.joined(separator: " AND "), values)
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

    /// What a guarded match is for.
    private enum GuardedOperation {
        /// Reading the secret or updating: the proof must satisfy the access control.
        case use
        /// Deleting: as `use`, except that an item whose biometric enrolment changed may go once the caller has
        /// authenticated (nothing can ever open it again, so it must not stay in the way of a new one).
        case delete
    }

    /// Whether the query's proof opens an item's access control: `.done(true)` when it does or the item has none,
    /// `.done(false)` when the item is to be skipped, and the policy when the operation needs it satisfied first.
    ///
    /// - Throws: `authFailed` for an item bound to a biometric enrolment that changed: nothing can open it again.
    private static func admits(
        _ attributes: [AttributeKey: AttributeValue], proof: AuthenticationProof?, query: ItemQuery,
        for operation: GuardedOperation
    ) throws -> ServiceAnswer<Bool> {
        guard let stored = try accessControl(of: attributes) else { return .done(true) }
        // Removing an item decrypts nothing, so a delete needs no application password.
        let accessControl = operation == .delete ? stored.withoutApplicationPassword : stored
        switch accessControl.evaluate(proof) {
        case .satisfied:
            return .done(true)
        case .invalidated where operation == .delete:
            return .done(true)
        case .needsAuthentication where query.unauthenticatedItems == .skip,
            .invalidated where query.unauthenticatedItems == .skip:
            return .done(false)
        case .needsAuthentication:
            return .needsAuthentication(accessControl, .open)
        case .invalidated:
            throw KeychainError(
                .authFailed, "the biometric enrolment the item was bound to has changed; it can no longer be opened")
        }
    }

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

    /// The exact, case-sensitive check on decrypted attributes; absent primary-key attributes count as "" or 0.
    private static func attributes(
        _ attributes: [AttributeKey: AttributeValue], of itemClass: ItemClass,
        match wanted: [AttributeKey: AttributeValue],
        query: ItemQuery
    ) -> Bool {
        let item = Item(
            itemClass: itemClass, attributes: attributes, secret: nil, persistentReference: .init(bytes: []))
        guard query.synchronizable.admits(item.isSynchronizable) else { return false }
        if let groups = query.accessGroups, !groups.contains(item.accessGroup) { return false }
        // A class's primary key is a handful of attributes: scanned, not hashed into a set for every row.
        let primary = itemClass.primaryKey
        let kinds = itemClass.attributeKinds
        for (key, value) in wanted {
            let stored = primary.contains(key) ? attributes.primaryKeyValue(key, kinds: kinds) : attributes[key]
            guard stored == value else { return false }
        }
        guard !query.secretServiceAttributes.isEmpty else { return true }
        return SecretServiceAttributes(of: attributes)?.contains(query.secretServiceAttributes) ?? false
    }

    // MARK: Update

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

    // MARK: Delete

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
    private func deleteRowUnread(_ rowID: Int64) throws {
        try deleteItemRows(where: "id = ?", [.integer(rowID)])
        // Its digests cannot be computed without its attributes: each lookup table is searched by row (a scan,
        // on these rare paths).
        for key in AttributeKey.withLookupTables {
            try connection.execute("DELETE FROM \(key.lookupTable) WHERE item = ?", [.integer(rowID)])
        }
    }

    /// Records that a synchronizable item's primary key went away: its attributes under a new reference (naming
    /// the tombstone's row), no secret.
    private func insertTombstone(for item: Item) throws {
        var tombstone = item
        tombstone.persistentReference = .drawn(for: item.itemClass)
        tombstone.attributes[.modificationDate] = .date(Date())
        _ = try insert(tombstone, secret: nil)
    }
}
