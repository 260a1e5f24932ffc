internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite
internal import FoundationEssentials

// Searching: the candidate rows the query planner selects, opened and checked one by one.
extension KeychainEngine {
    /// The items `query` matches, or what reading one of them needs first.
    func find(_ query: ItemQuery) throws -> ServiceAnswer<[Item]> {
        try matches(
            for: query, loadingSecrets: query.returnsSecret, guard: query.returnsSecret ? .use : nil,
            passingUnreadableRows: true, secretsOnly: query.returnsSecret && !query.returnsAttributes
        ).map { $0.map(\.item) }
    }

    /// A matched item and its row.
    typealias Match = (rowID: Int64, item: Item)

    /// The items a query matches, each with its row id, in insertion order and up to the query's limit; or what
    /// the operation needs first, found at the first row that needs it (the search stops there).
    ///
    /// With a `guard` (reading secrets, updating, deleting), an item whose access control the query's proof does
    /// not satisfy answers that policy, or is left out under `UnauthenticatedItemPolicy.skip`.
    ///
    /// A candidate row that cannot be read (its class is closed, its data was altered, a newer build sealed it)
    /// answers `.needsUnlock` or fails the query, unless `passingUnreadableRows` (searches): then it is passed over,
    /// so one locked or damaged item does not hide every other, and its answer or error is given only when nothing
    /// else matched.
    ///
    /// With `secretsOnly` (a search whose caller takes secrets, not attributes), a read by whole primary key opens
    /// only the secret of a row sealed with its primary-key digest (`SealingFormat.primaryKeyBound`), and its item
    /// holds the attributes `secretOnlyItem` names.
    func matches(
        for query: ItemQuery, loadingSecrets: Bool, guard operation: GuardedOperation?,
        passingUnreadableRows: Bool = false, secretsOnly: Bool = false
    ) throws -> ServiceAnswer<[Match]> {
        let itemClass = query.itemClass
        // No identity is stored (a search pairs certificates with keys), so a search of its class here finds none.
        guard itemClass.isStorable else { return .done([]) }
        let wanted = try itemClass.normalized(query.attributes)
        if let limit = query.limit.maximum, limit < 1 { return .done([]) }
        let (sql, values, primaryKeys) = candidateSelection(query, attributes: wanted)
        let secretOnlyKeys = secretsOnly ? Self.secretOnlyKeys(primaryKeys, query: query, wanted: wanted) : nil
        let proof = query.authentication?.accepted(by: keybag.identity)
        var found: [Match] = []
        // What a row needs before the operation can go on: the search stops at it and answers it.
        var pending: ServiceAnswer<[Match]>?
        // The first row passed over as unreadable: what the search answers, or throws, when nothing else matched.
        var unreadable: Result<ServiceAnswer<[Match]>, KeychainError>?
        try connection.forEachRow(sql, values) { row in
            let candidate: ItemRow
            let opening: RowOpening
            do {
                candidate = try ItemRow(row: row, itemClass: itemClass)
                opening = try open(candidate, row: row, secretOnlyKeys: secretOnlyKeys, wanted: wanted)
            } catch let error as KeychainError where passingUnreadableRows {
                unreadable = unreadable ?? .failure(error)
                return true
            }
            switch opening {
            case .classClosed:
                guard passingUnreadableRows else {
                    pending = .needsUnlock
                    return false
                }
                unreadable = unreadable ?? .success(.needsUnlock)
                return true
            case .secretOnly(let item):
                found.append((candidate.id, item))
            case .attributes(let itemKey, let attributes):
                let answer = try matchedItem(
                    candidate, itemKey: itemKey, attributes: attributes, wanted: wanted, query: query, proof: proof,
                    guard: operation, loadingSecret: loadingSecrets)
                guard case .done(let item) = answer else {
                    pending = answer.need()
                    return false
                }
                guard let item else { return true }
                found.append((candidate.id, item))
            }
            return query.limit.maximum.map { found.count < $0 } ?? true
        }
        if let pending { return pending }
        if found.isEmpty, let unreadable { return try unreadable.get() }
        return .done(found)
    }

    /// The primary keys a secrets-only search may match rows by without opening their attributes: those the
    /// statement selected, when the digest match and the row's protection are all there is to check. A group or
    /// `sync` among the attributes (the digests take them from the query's own fields) is checked against the
    /// decrypted attributes. Passwords only: a key's or certificate's answer depends on its other attributes (a key
    /// a token holds is answered with its public key alone).
    private static func secretOnlyKeys(
        _ primaryKeys: [PrimaryKeyCandidate]?, query: ItemQuery, wanted: [AttributeKey: AttributeValue]
    ) -> [PrimaryKeyCandidate]? {
        let itemClass = query.itemClass
        guard itemClass == .genericPassword || itemClass == .internetPassword, query.secretServiceAttributes.isEmpty
        else { return nil }
        let checkedByDigest = wanted.keys.allSatisfy { key in
            key == .accessible || (key != .accessGroup && key != .synchronizable && itemClass.primaryKey.contains(key))
        }
        return checkedByDigest ? primaryKeys : nil
    }

    /// What opening a candidate row gave.
    private enum RowOpening {
        /// Its protection class is closed.
        case classClosed
        /// A secrets-only read matched it by primary key and opened its secret alone (`secretOnlyItem`).
        case secretOnly(Item)
        /// Its item key and decrypted attributes, still to be checked against the query.
        case attributes(itemKey: SecureBytes, [AttributeKey: AttributeValue])
    }

    /// Opens a candidate row's item key, and then its secret alone when `secretOnlyKeys` holds its primary key,
    /// else its attributes.
    ///
    /// - Throws: a `KeychainError` for a row that cannot be read (altered data).
    private func open(
        _ candidate: ItemRow, row: Row, secretOnlyKeys: [PrimaryKeyCandidate]?,
        wanted: [AttributeKey: AttributeValue]
    ) throws -> RowOpening {
        guard let classKey = try openClassKey(for: candidate.binding.protection) else { return .classClosed }
        let itemKey = try sealer.itemKey(storedKey: candidate.storedKey, classKey: classKey, binding: candidate.binding)
        if let secretOnlyKeys, let primaryKey = candidate.primaryKey(among: secretOnlyKeys) {
            let secret = try sealer.openSecret(candidate.sealedSecret, itemKey: itemKey, binding: candidate.binding)
            return .secretOnly(Self.secretOnlyItem(candidate, primaryKey, wanted: wanted, secret: secret))
        }
        let attributes = try sealer.openAttributes(
            ItemRow.sealedAttributes(of: row), itemKey: itemKey, binding: candidate.binding)
        return .attributes(itemKey: itemKey, attributes)
    }

    /// The item an opened row gives the search: `.done(nil)` when its attributes do not match or the operation
    /// skips it, else the item (with its secret when `loadingSecret`), or what its access control or application
    /// password needs first.
    private func matchedItem(
        _ candidate: ItemRow, itemKey: SecureBytes, attributes: [AttributeKey: AttributeValue],
        wanted: [AttributeKey: AttributeValue], query: ItemQuery, proof: AuthenticationProof?,
        guard operation: GuardedOperation?, loadingSecret: Bool
    ) throws -> ServiceAnswer<Item?> {
        guard Self.attributes(attributes, of: query.itemClass, match: wanted, query: query) else { return .done(nil) }
        if let operation {
            let admission = try Self.admits(attributes, proof: proof, query: query, for: operation)
            guard case .done(let admitted) = admission else { return admission.need() }
            if !admitted { return .done(nil) }
        }
        var secret: SecureBytes?
        if loadingSecret {
            let opened = try openSecret(
                of: candidate, itemKey: itemKey, attributes: attributes, query: query, proof: proof)
            guard case .done(let openedSecret) = opened else { return opened.need() }
            guard let openedSecret else { return .done(nil) }
            secret = openedSecret
        }
        return .done(
            Item(
                itemClass: query.itemClass, attributes: attributes, secret: secret,
                persistentReference: candidate.binding.persistentReference))
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
        guard let accessControl = try AccessControl.carried(by: attributes), accessControl.usesApplicationPassword
        else {
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

    /// What a guarded match is for.
    enum GuardedOperation {
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
        guard let stored = try AccessControl.carried(by: attributes) else { return .done(true) }
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
}
