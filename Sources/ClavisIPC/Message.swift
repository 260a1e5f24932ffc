public import ClavisCore
public import FoundationEssentials

/// What a client asks clavisd: one `KeychainService` call.
public enum Request: Sendable {
    case add(NewItem)
    case find(ItemQuery)
    case lockedItemReferences(ItemQuery)
    case update(ItemQuery, ItemChanges)
    case delete(ItemQuery)
    case lock
    case unlock(SecureBytes?)
    case verifyPasscode(SecureBytes, AuthenticationSessionID?)
    case setPasscode(SecureBytes?, current: SecureBytes?, PasscodeStrength)
    case status
    case exportBackup(passphrase: SecureBytes, PasscodeStrength)
    case importBackup(Data, passphrase: SecureBytes)
    case promptForPasscode(PasscodePrompt)
    case biometryStatus
    case scanBiometry(reason: String, AuthenticationSessionID)
    case endAuthenticationSession(AuthenticationSessionID)
    case accessLog(AccessLogQuery)
    case addGeneratedKey(NewItem)
    case useKey(PersistentReference, KeyUse, AuthenticationProof?)
    case generateSealedKey(NewItem)
    case useSealedKey([UInt8], KeyUse, AuthenticationProof?)
    case addSealedKey([UInt8], NewItem)
    case purgeAccessGroups([String])
    case sync(SyncCommand)

    /// The request's bytes (which may hold a secret: wipe the writer once sent).
    public func encode(to writer: inout ByteWriter) {
        switch self {
        case .add(let item):
            writer.byte(1)
            writer.newItem(item)
        case .find(let query):
            writer.byte(2)
            writer.query(query)
        case .lockedItemReferences(let query):
            writer.byte(14)
            writer.query(query)
        case .update(let query, let changes):
            writer.byte(3)
            writer.query(query)
            writer.changes(changes)
        case .delete(let query):
            writer.byte(4)
            writer.query(query)
        case .lock:
            writer.byte(5)
        case .unlock(let passcode):
            writer.byte(6)
            writer.optional(passcode) { $0.secret($1) }
        case .verifyPasscode(let passcode, let session):
            writer.byte(7)
            writer.secret(passcode)
            writer.optional(session) { $0.session($1) }
        case .setPasscode(let new, let current, let strength):
            writer.byte(8)
            writer.optional(new) { $0.secret($1) }
            writer.optional(current) { $0.secret($1) }
            writer.strength(strength)
        case .status:
            writer.byte(9)
        case .exportBackup(let passphrase, let strength):
            writer.byte(10)
            writer.secret(passphrase)
            writer.strength(strength)
        case .importBackup(let archive, let passphrase):
            writer.byte(11)
            writer.lengthPrefixed(archive)
            writer.secret(passphrase)
        case .promptForPasscode(let prompt):
            writer.byte(20)
            writer.prompt(prompt)
        case .biometryStatus:
            writer.byte(21)
        case .scanBiometry(let reason, let session):
            writer.byte(22)
            writer.string(reason)
            writer.session(session)
        case .endAuthenticationSession(let session):
            writer.byte(23)
            writer.session(session)
        case .accessLog(let query):
            writer.byte(24)
            writer.optional(query.since) { $0.uint64(UInt64(max(0, $1.timeIntervalSince1970 * 1000))) }
            writer.optional(query.item) { $0.lengthPrefixed($1.bytes) }
        case .addGeneratedKey(let item):
            writer.byte(12)
            writer.newItem(item)
        case .useKey(let reference, let use, let proof):
            writer.byte(13)
            writer.lengthPrefixed(reference.bytes)
            writer.keyUse(use)
            writer.proof(proof)
        case .generateSealedKey(let item):
            writer.byte(15)
            writer.newItem(item)
        case .useSealedKey(let box, let use, let proof):
            writer.byte(16)
            writer.lengthPrefixed(box)
            writer.keyUse(use)
            writer.proof(proof)
        case .addSealedKey(let box, let item):
            writer.byte(17)
            writer.lengthPrefixed(box)
            writer.newItem(item)
        case .purgeAccessGroups(let groups):
            writer.byte(25)
            writer.strings(groups)
        case .sync(let command):
            writer.byte(26)
            writer.syncCommand(command)
        }
    }

    /// Reads a request.
    ///
    /// - Throws: `decode` for anything that is not a whole, well-formed request.
    public init(from reader: inout ByteReader) throws(KeychainError) {
        func secret(_ reader: inout ByteReader) throws(KeychainError) -> SecureBytes { try reader.secret() }
        switch try reader.byte() {
        case 1: self = .add(try reader.newItem())
        case 2: self = .find(try reader.query())
        case 3: self = .update(try reader.query(), try reader.changes())
        case 4: self = .delete(try reader.query())
        case 5: self = .lock
        case 6: self = .unlock(try reader.optional(secret))
        case 7:
            self = .verifyPasscode(
                try reader.secret(), try reader.optional { (reader) throws(KeychainError) in try reader.session() })
        case 8:
            self = .setPasscode(
                try reader.optional(secret), current: try reader.optional(secret), try reader.strength())
        case 9: self = .status
        case 10: self = .exportBackup(passphrase: try reader.secret(), try reader.strength())
        case 11: self = .importBackup(try reader.data(), passphrase: try reader.secret())
        case 12: self = .addGeneratedKey(try reader.newItem())
        case 13:
            self = .useKey(
                PersistentReference(bytes: Array(try reader.lengthPrefixed())), try reader.keyUse(), try reader.proof())
        case 14: self = .lockedItemReferences(try reader.query())
        case 15: self = .generateSealedKey(try reader.newItem())
        case 16: self = .useSealedKey(Array(try reader.lengthPrefixed()), try reader.keyUse(), try reader.proof())
        case 17: self = .addSealedKey(Array(try reader.lengthPrefixed()), try reader.newItem())
        case 20: self = .promptForPasscode(try reader.prompt())
        case 21: self = .biometryStatus
        case 22: self = .scanBiometry(reason: try reader.string(), try reader.session())
        case 23: self = .endAuthenticationSession(try reader.session())
        case 24:
            let since = try reader.optional { (reader) throws(KeychainError) in
                Date(timeIntervalSince1970: Double(try reader.uint64()) / 1000)
            }
            let item = try reader.optional { (reader) throws(KeychainError) in
                PersistentReference(bytes: Array(try reader.data()))
            }
            self = .accessLog(AccessLogQuery(since: since, item: item))
        case 25: self = .purgeAccessGroups(try reader.strings())
        case 26: self = .sync(try reader.syncCommand())
        default: throw reader.malformed("an unknown request")
        }
        guard reader.isAtEnd else { throw reader.malformed("bytes after the request") }
    }
}

/// What clavisd answers: the call's result, what the client must do first, or the error.
public enum Response: Sendable {
    case failure(KeychainError)
    case needsUnlock
    case needsAuthentication(AccessControl, KeychainError.ApplicationPasswordUse)
    case item(Item)
    case items([Item])
    case count(Int)
    case done
    case identity(Data)
    case status(KeychainStatus)
    case backup(Data, BackupSummary)
    case restore(RestoreSummary)
    case biometry(BiometryStatus)
    case biometricCheck(Result<Data, AuthenticationFailure>)
    /// Access-log entries, one JSON line each (as the log stores them).
    case accessLog(Data)
    /// What a key the service holds made: a signature or a shared secret.
    case keyResult(SecureBytes)
    /// What a purge of access groups deleted and kept.
    case purge(AccessGroupPurge)
    /// Items named by their persistent references: the locked items a query matches.
    case references([PersistentReference])
    /// A key the service made and does not store.
    case sealedKey(SealedKey)
    /// How sync stands after a sync command.
    case syncStatus(SyncStatus)
    /// Nothing was done: the request was sent before the daemon had identified the process sending it (its first
    /// on this connection), so it cannot tell which program sent it. The same request sent again is answered.
    case sendAgain

    /// The response's bytes (which may hold secrets: wipe the writer once sent).
    public func encode(to writer: inout ByteWriter) {
        switch self {
        case .failure(let error):
            writer.byte(0)
            writer.error(error)
        case .needsUnlock:
            writer.byte(1)
        case .needsAuthentication(let policy, let use):
            writer.byte(2)
            writer.lengthPrefixed(policy.encoded)
            writer.bool(use == .seal)
        case .item(let item):
            writer.byte(3)
            writer.item(item)
        case .items(let items):
            writer.byte(4)
            writer.uint32(UInt32(items.count))
            for item in items { writer.item(item) }
        case .count(let count):
            writer.byte(5)
            writer.uint64(UInt64(max(count, 0)))
        case .done:
            writer.byte(6)
        case .identity(let identity):
            writer.byte(7)
            writer.lengthPrefixed(identity)
        case .status(let status):
            writer.byte(8)
            writer.status(status)
        case .backup(let archive, let summary):
            writer.byte(9)
            writer.lengthPrefixed(archive)
            for count in [summary.exported, summary.thisDeviceOnly, summary.accessControlled] {
                writer.uint64(UInt64(max(count, 0)))
            }
        case .restore(let summary):
            writer.byte(10)
            writer.uint64(UInt64(max(summary.restored, 0)))
            writer.uint64(UInt64(max(summary.alreadyPresent, 0)))
        case .biometry(let status):
            writer.byte(20)
            writer.biometry(status)
        case .biometricCheck(let outcome):
            writer.byte(21)
            writer.enrolment(outcome)
        case .accessLog(let lines):
            writer.byte(22)
            writer.lengthPrefixed(lines)
        case .keyResult(let result):
            writer.byte(11)
            writer.secret(result)
        case .purge(let purge):
            writer.byte(23)
            writer.uint64(UInt64(max(purge.deleted, 0)))
            writer.strings(purge.purgedGroups)
            writer.strings(purge.keptGroups)
        case .sendAgain:
            writer.byte(24)
        case .references(let references):
            writer.byte(12)
            writer.uint32(UInt32(references.count))
            for reference in references { writer.lengthPrefixed(reference.bytes) }
        case .sealedKey(let key):
            writer.byte(13)
            writer.lengthPrefixed(key.box)
            writer.item(key.item)
        case .syncStatus(let status):
            writer.byte(14)
            writer.syncStatus(status)
        }
    }

    /// Reads a response.
    ///
    /// - Throws: `decode` for anything that is not a whole, well-formed response.
    public init(from reader: inout ByteReader) throws(KeychainError) {
        func count(_ reader: inout ByteReader) throws(KeychainError) -> Int { Int(clamping: try reader.uint64()) }
        switch try reader.byte() {
        case 0: self = .failure(try reader.error())
        case 1: self = .needsUnlock
        case 2:
            self = .needsAuthentication(
                try AccessControl(encoded: try reader.data()), try reader.bool() ? .seal : .open)
        case 3: self = .item(try reader.item())
        case 4:
            let total = try reader.uint32()
            var items: [Item] = []
            for _ in 0..<total { items.append(try reader.item()) }
            self = .items(items)
        case 5: self = .count(try count(&reader))
        case 6: self = .done
        case 7: self = .identity(try reader.data())
        case 8: self = .status(try reader.status())
        case 9:
            let archive = try reader.data()
            self = .backup(
                archive,
                BackupSummary(
                    exported: try count(&reader), thisDeviceOnly: try count(&reader),
                    accessControlled: try count(&reader)))
        case 10: self = .restore(RestoreSummary(restored: try count(&reader), alreadyPresent: try count(&reader)))
        case 11: self = .keyResult(try reader.secret())
        case 12:
            let total = try reader.uint32()
            var references: [PersistentReference] = []
            for _ in 0..<total { references.append(PersistentReference(bytes: Array(try reader.lengthPrefixed()))) }
            self = .references(references)
        case 13: self = .sealedKey(SealedKey(box: Array(try reader.lengthPrefixed()), item: try reader.item()))
        case 14: self = .syncStatus(try reader.syncStatus())
        case 20: self = .biometry(try reader.biometry())
        case 21: self = .biometricCheck(try reader.enrolment())
        case 22: self = .accessLog(try reader.data())
        case 23:
            self = .purge(
                AccessGroupPurge(
                    deleted: try count(&reader), purgedGroups: try reader.strings(), keptGroups: try reader.strings()))
        case 24: self = .sendAgain
        default: throw reader.malformed("an unknown response")
        }
        guard reader.isAtEnd else { throw reader.malformed("bytes after the response") }
    }
}
