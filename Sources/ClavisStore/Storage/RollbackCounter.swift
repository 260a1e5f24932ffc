internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite
internal import ClavisTPM

/// Anti-rollback for a keychain bound to a TPM: a monotonic counter in the TPM's NV memory and, in `keychain.db`, a
/// record of the count of the keychain's writes and of the keyed digest of its rows (`StateDigest`), authenticated
/// together under a key derived from the device key.
///
/// Every write changes its rows and folds them into the record's digest in one transaction, then adds one to the
/// stored count and brings the TPM's counter up to it; both steps hold SQLite's write lock, so the TPM's counter
/// never passes the stored count. On open, a record whose count is below the TPM's counter is an older copy of
/// `keychain.db` put back, and rows whose digest differs from the record's are an older copy of some row (or a row
/// removed or added) put back into the current file: either refuses to open with `invalidKeychain`
/// (`errSecInvalidKeychain`, what Apple answers for a keychain file it will not use; not `errSecDecode`, which names
/// one item that does not decrypt, nor `errSecIO`, which invites a retry).
///
/// Granularity: one count per write call (an add, update, delete, passcode change or unlock), and one code per row
/// version; checked when the keychain opens (a process that keeps it open learns of a row put back meanwhile at its
/// next open). Cost: per write, one more SQLite transaction, a TPM connection, an NV read and an NV increment (about
/// a millisecond on swtpm; on a hardware TPM several, and NV increments wear its memory), and a few short hashes per
/// changed row; per open, a scan of every row (see design-notes for the figure at 100,000 items). Reads cost nothing.
struct RollbackCounter {
    /// The settings row holding the counter's index, the stored count, the state digest and their authentication
    /// code.
    static let settingName = "rollback_counter"

    private let tcti: String
    private let index: UInt32
    private let key: SecureBytes
    /// The keyed digest of the keychain's rows, which the record holds.
    let state: StateDigest

    /// Whether the keychain has a counter, whose record writes must keep current.
    var tracksState: Bool { index != 0 }

    /// Opens the keychain's counter: creates it for a keychain that has none yet (when it can be written), else
    /// checks the stored count against the TPM's and the stored digest against the rows, and brings the TPM's
    /// counter up to the stored count after an interrupted write.
    ///
    /// - Throws: `invalidKeychain` when the record was altered, its count is below the TPM's counter (an older copy
    ///   of `keychain.db` was put back) or its digest differs from the rows' (an older copy of a row was put back);
    ///   `notAvailable` when the TPM refuses.
    init(connection: Connection, tcti: String, deviceKey: SecureBytes, writable: Bool) throws {
        self.tcti = tcti
        key = try HKDFSHA256.deriveKey(
            from: deviceKey, salt: [], info: Array("clavis rollback counter".utf8), outputByteCount: 32)
        state = try StateDigest(deviceKey: deviceKey)
        // The record and the rows, read from one snapshot: another process may be writing.
        var (stored, rows) = try connection.transaction(immediate: false) { [state] in
            (try Self.storedRecord(connection), try state.digestOfEverything(connection))
        }
        if stored == nil && writable {
            // Created under the write lock, so that two processes opening a new keychain make one counter.
            (stored, rows) = try connection.transaction { [key, state] () throws -> ([UInt8]?, [UInt8]) in
                let rows = try state.digestOfEverything(connection)
                if let made = try Self.storedRecord(connection) { return (made, rows) }
                let created = try TPMConnection(tcti: tcti).createCounter()
                let record = Record(index: created.index, count: created.value, stateDigest: rows)
                try Self.store(record, key: key, in: connection)
                return (record.encoded(key: key), rows)
            }
        }
        guard let stored else {
            // A read-only keychain that never had a counter: nothing to check, and no write to count.
            index = 0
            return
        }
        guard let record = Record(decoding: stored, key: key) else { throw Self.alteredRecord }
        index = record.index
        let counted = try TPMConnection(tcti: tcti).counterValue(index)
        guard record.count >= counted else {
            throw KeychainError(
                .invalidKeychain,
                "keychain.db is an older copy: it counts \(record.count) writes and the TPM's anti-rollback counter "
                    + "\(counted); a restored or rolled-back keychain is refused")
        }
        if let digest = record.stateDigest {
            guard ConstantTime.equals(digest, rows) else {
                throw KeychainError(
                    .invalidKeychain,
                    "keychain.db's rows differ from its anti-rollback digest: an older copy of an item or of the "
                        + "keybag was put back, or a row was removed or added; the keychain is refused")
            }
        } else if writable {
            try recordStateDigest(connection)
        }
        if writable { try catchUp(connection) }
    }

    /// Counts one write: the stored count goes up by one, then the TPM's counter is brought up to it.
    func recordWrite(_ connection: Connection) throws {
        guard tracksState else { return }
        try connection.transaction {
            guard var record = try Self.storedRecord(connection).flatMap({ Record(decoding: $0, key: key) }) else {
                throw Self.alteredRecord
            }
            record.count += 1
            try Self.store(record, key: key, in: connection)
        }
        try catchUp(connection)
    }

    /// Folds `codes` (the codes of changed rows as they were and as they are) into the stored digest, in the
    /// caller's write transaction.
    func foldIntoState(_ codes: [[UInt8]], _ connection: Connection) throws {
        guard tracksState else { return }
        try connection.transaction {
            guard var record = try Self.storedRecord(connection).flatMap({ Record(decoding: $0, key: key) }) else {
                throw Self.alteredRecord
            }
            // A record from before state digests gets one at the next writable open; until then there is none to keep.
            guard var digest = record.stateDigest else { return }
            for code in codes { StateDigest.fold(code, into: &digest) }
            record.stateDigest = digest
            try Self.store(record, key: key, in: connection)
        }
    }

    /// Gives a record written before state digests the digest of the rows, under the write lock.
    private func recordStateDigest(_ connection: Connection) throws {
        try connection.transaction {
            guard var record = try Self.storedRecord(connection).flatMap({ Record(decoding: $0, key: key) }) else {
                throw Self.alteredRecord
            }
            guard record.stateDigest == nil else { return }
            record.stateDigest = try state.digestOfEverything(connection)
            try Self.store(record, key: key, in: connection)
        }
    }

    /// Holding the write lock, increments the TPM's counter until it reaches the stored count.
    private func catchUp(_ connection: Connection) throws {
        try connection.transaction {
            guard let record = try Self.storedRecord(connection).flatMap({ Record(decoding: $0, key: key) }) else {
                return
            }
            let tpm = try TPMConnection(tcti: tcti)
            var counted = try tpm.counterValue(index)
            while counted < record.count {
                try tpm.incrementCounter(index)
                counted += 1
            }
        }
    }

    private static let alteredRecord = KeychainError(
        .invalidKeychain, "the keychain's anti-rollback record was altered")

    private static func storedRecord(_ connection: Connection) throws -> [UInt8]? {
        try connection.scalar("SELECT value FROM settings WHERE name = ?", [.text(settingName)])?.blob
    }

    private static func store(_ record: Record, key: SecureBytes, in connection: Connection) throws {
        try connection.execute(
            "INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)",
            [.text(settingName), .blob(record.encoded(key: key))])
    }

    /// What the settings row holds: the counter's index and the count (big-endian), the state digest (absent in a
    /// record written before there were digests) and the authentication code of all three.
    private struct Record {
        var index: UInt32
        var count: UInt64
        var stateDigest: [UInt8]?

        private static let bodyByteCount = 12
        private static let legacyByteCount = bodyByteCount + HMACSHA256.byteCount
        private static let byteCount = bodyByteCount + StateDigest.byteCount + HMACSHA256.byteCount

        init(index: UInt32, count: UInt64, stateDigest: [UInt8]?) {
            self.index = index
            self.count = count
            self.stateDigest = stateDigest
        }

        /// The record `encoded` holds, or `nil` when its length or authentication code is wrong.
        init?(decoding encoded: [UInt8], key: SecureBytes) {
            guard encoded.count == Self.byteCount || encoded.count == Self.legacyByteCount else { return nil }
            let body = Array(encoded.dropLast(HMACSHA256.byteCount))
            let code = Array(encoded.suffix(HMACSHA256.byteCount))
            guard ConstantTime.equals(HMACSHA256.authenticationCode(for: body, key: key), code) else { return nil }
            index = body.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            count = body[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            stateDigest = body.count > Self.bodyByteCount ? Array(body.dropFirst(Self.bodyByteCount)) : nil
        }

        func encoded(key: SecureBytes) -> [UInt8] {
            var body = ByteWriter(capacity: Self.byteCount)
            body.uint32(index)
            body.uint64(count)
            if let stateDigest { body.raw(stateDigest) }
            return body.bytes + HMACSHA256.authenticationCode(for: body.bytes, key: key)
        }
    }
}
