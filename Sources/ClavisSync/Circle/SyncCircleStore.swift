public import ClavisCore

/// An account's circle on the sync server, as its devices read and change it: the signed versions, the sync keys
/// wrapped to each member and to the recovery key, and the join requests waiting for approval.
public struct SyncCircleStore {
    /// The connection, logged in as the account.
    public let database: SyncDatabase

    /// The circle of the account `database` is logged in as.
    public init(database: SyncDatabase) {
        self.database = database
    }

    /// What the recovery member's keys, sealed under the recovery key, are stored as among the wrapped keys.
    static let recoveryMemberRecipient = Array("recovery-member".utf8)

    /// Publishes `signed` as version `version`.
    ///
    /// - Throws: `duplicateItem` when that version exists (another device changed the circle first).
    public func publish(_ signed: SignedSyncCircle, version: Int64) throws(KeychainError) {
        let inserted = try database.execute(
            """
            INSERT INTO clavis_sync.circles (version, circle, signature) VALUES ($1, $2, $3)
            ON CONFLICT DO NOTHING RETURNING change
            """, [.integer(version), .bytes(signed.body), .bytes(signed.signature)])
        guard !inserted.isEmpty else {
            throw KeychainError(.duplicateItem, "another device changed the circle first: read it and try again")
        }
    }

    /// The versions after `version`, oldest first: what a device checks one by one from the version it trusts.
    public func circles(after version: Int64) throws(KeychainError) -> [SignedSyncCircle] {
        try database.execute(
            "SELECT circle, signature FROM clavis_sync.circles WHERE version > $1 ORDER BY version",
            [.integer(version)]
        ).map { (row) throws(KeychainError) -> SignedSyncCircle in
            guard let body = row[0].bytes, let signature = row[1].bytes else {
                throw KeychainError(.decode, "the sync server answered a circle with a missing column")
            }
            return SignedSyncCircle(body: body, signature: signature)
        }
    }

    /// Stores `wrapped` for `recipient` (a device's identifier, or the recovery key) in `generation`.
    public func putWrappedKeys(_ wrapped: [UInt8], generation: Int64, recipient: [UInt8]) throws(KeychainError) {
        try database.execute(
            """
            INSERT INTO clavis_sync.wrapped_keys (generation, recipient, wrapped) VALUES ($1, $2, $3)
            ON CONFLICT (account, generation, recipient) DO UPDATE SET wrapped = excluded.wrapped
            """, [.integer(generation), .bytes(recipient), .bytes(wrapped)])
    }

    /// What is wrapped for `recipient`, by generation.
    public func wrappedKeys(for recipient: [UInt8]) throws(KeychainError) -> [Int64: [UInt8]] {
        var found: [Int64: [UInt8]] = [:]
        for row in try database.execute(
            "SELECT generation, wrapped FROM clavis_sync.wrapped_keys WHERE recipient = $1", [.bytes(recipient)])
        {
            guard let generation = row[0].integer, let wrapped = row[1].bytes else {
                throw KeychainError(.decode, "the sync server answered wrapped keys with a missing column")
            }
            found[generation] = wrapped
        }
        return found
    }

    /// Posts `request` (replacing an earlier one of the same device).
    public func post(_ request: SyncJoinRequest) throws(KeychainError) {
        try database.execute(
            """
            INSERT INTO clavis_sync.join_requests (device, request) VALUES ($1, $2)
            ON CONFLICT (account, device) DO UPDATE SET request = excluded.request, created = now()
            """, [.bytes(request.member.identifier), .bytes(request.encoded)])
    }

    /// The requests waiting, each checked (a malformed or forged one is left out).
    public func joinRequests() throws(KeychainError) -> [SyncJoinRequest] {
        try database.execute("SELECT request FROM clavis_sync.join_requests ORDER BY created").compactMap {
            $0[0].bytes.flatMap { try? SyncJoinRequest(encoded: $0) }
        }
    }

    /// Removes the request of `device`.
    public func removeJoinRequest(of device: [UInt8]) throws(KeychainError) {
        try database.execute("DELETE FROM clavis_sync.join_requests WHERE device = $1", [.bytes(device)])
    }
}
