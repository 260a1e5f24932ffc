public import ClavisCore

/// An account's records on the sync server, as its devices read and write them: each write replaces the version the
/// writer last saw or fails (another device wrote first), and a device catches up by asking for every change after
/// the last change number it applied.
public struct SyncRecordStore {
    /// The connection, logged in as the account.
    public let database: SyncDatabase

    /// The records of the account `database` is logged in as.
    public init(database: SyncDatabase) {
        self.database = database
    }

    /// A record with the change number the server gave its last write.
    public struct Change: Sendable, Equatable {
        /// The change number: greater than every change before it.
        public var change: Int64
        /// The record as written.
        public var record: SyncRecord
    }

    /// Writes `record` in place of version `replacing` of it (`nil`: a record the server does not have yet) and
    /// returns its change number.
    ///
    /// - Throws: `duplicateItem` when the server's copy is not at `replacing` (another device wrote first: read the
    ///   changes, resolve, and write again), `param` for a version that does not follow `replacing`.
    @discardableResult
    public func write(_ record: SyncRecord, replacing: Int64?) throws(KeychainError) -> Int64 {
        guard record.version == (replacing ?? 0) + 1 else {
            throw KeychainError(
                .param, "version \(record.version) does not follow \(replacing.map(String.init) ?? "none")")
        }
        let values: [SyncParameter] = [
            .bytes(record.identifier), .integer(record.version), .bytes(record.writer), .bytes(record.ciphertext),
            .bytes(record.signature),
        ]
        let written = try database.transaction { () throws(KeychainError) -> [SyncRow] in
            // The account's writes take turns, so that change numbers are committed in order and a device that read
            // up to one never misses a smaller one committed later.
            try database.execute("SELECT pg_advisory_xact_lock(hashtext(current_user::text))")
            return try insertOrReplace(values, replacing: replacing)
        }
        guard let change = written.first?[0].integer else {
            throw KeychainError(
                .duplicateItem, "another device wrote this record first: read the changes and write again")
        }
        return change
    }

    /// The write itself: an update of version `replacing`, or an insert of a record the server does not have.
    private func insertOrReplace(_ values: [SyncParameter], replacing: Int64?) throws(KeychainError) -> [SyncRow] {
        if let replacing {
            return try database.execute(
                """
                UPDATE clavis_sync.records SET version = $2, writer = $3, ciphertext = $4, signature = $5,
                    change = nextval('clavis_sync.changes')
                WHERE record_id = $1 AND version = $6 RETURNING change
                """, values + [.integer(replacing)])
        }
        return try database.execute(
            """
            INSERT INTO clavis_sync.records (record_id, version, writer, ciphertext, signature)
            VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING change
            """, values)
    }

    /// Listens on the account's channel (`clavis_sync.<account>`): each record or circle change another connection
    /// commits then wakes `database.nextNotification`.
    public func listenForChanges() throws(KeychainError) {
        guard let account = try database.execute("SELECT current_user::text").first?[0].text else {
            throw KeychainError(.notAvailable, "the sync server did not name the account")
        }
        try database.listen("clavis_sync." + account)
    }

    /// Removes version `version` of the record `identifier` (an expired tombstone); a newer version stays.
    public func expire(_ identifier: [UInt8], version: Int64) throws(KeychainError) {
        try database.execute(
            "DELETE FROM clavis_sync.records WHERE record_id = $1 AND version = $2",
            [.bytes(identifier), .integer(version)])
    }

    /// The account's records written after change `after`, oldest change first, at most `limit`.
    public func changes(after: Int64, limit: Int = 500) throws(KeychainError) -> [Change] {
        try database.execute(
            """
            SELECT change, record_id, version, writer, ciphertext, signature FROM clavis_sync.records
            WHERE change > $1 ORDER BY change LIMIT $2
            """, [.integer(after), .integer(Int64(limit))]
        ).map { (row) throws(KeychainError) -> Change in
            guard let change = row[0].integer, let identifier = row[1].bytes, let version = row[2].integer,
                let writer = row[3].bytes, let ciphertext = row[4].bytes, let signature = row[5].bytes
            else { throw KeychainError(.decode, "the sync server answered a record with a missing column") }
            return Change(
                change: change,
                record: SyncRecord(
                    identifier: identifier, version: version, writer: writer, ciphertext: ciphertext,
                    signature: signature))
        }
    }
}

extension SyncRecordStore {
    /// Keeps this device's high-water mark in place of its last one.
    func publish(_ mark: SyncHighWaterMark, by device: SyncDeviceKey, circle: [UInt8]) throws(KeychainError) {
        let sealed = try mark.sealed(by: device, circle: circle)
        try database.execute(
            """
            INSERT INTO clavis_sync.high_water_marks (device, mark, signature) VALUES ($1, $2, $3)
            ON CONFLICT (account, device) DO UPDATE SET mark = EXCLUDED.mark, signature = EXCLUDED.signature
            """, [.bytes(device.identifier), .bytes(sealed.mark), .bytes(sealed.signature)])
    }

    /// The high-water marks of the devices `members` lists (identifier → signing key), each verified; the marks of
    /// other devices (removed ones) are passed over.
    ///
    /// - Throws: `verifyFailed` for a member's mark that does not verify.
    func marks(of members: [[UInt8]: [UInt8]], circle: [UInt8]) throws(KeychainError) -> [SyncHighWaterMark] {
        var marks: [SyncHighWaterMark] = []
        for row in try database.execute("SELECT device, mark, signature FROM clavis_sync.high_water_marks") {
            guard let device = row[0].bytes, let stored = row[1].bytes, let signature = row[2].bytes else {
                throw KeychainError(.decode, "the sync server answered a high-water mark with a missing column")
            }
            guard let signingKey = members[device] else { continue }
            marks.append(
                try SyncHighWaterMark(
                    device: device, stored: stored, signature: signature, signingKey: signingKey, circle: circle))
        }
        return marks
    }

    /// The version of the record `identifier` the server holds; `nil` when it holds none.
    func version(of identifier: [UInt8]) throws(KeychainError) -> Int64? {
        try database.execute(
            "SELECT version FROM clavis_sync.records WHERE record_id = $1", [.bytes(identifier)]
        ).first?[0].integer
    }
}
