import ClavisCore
import ClavisCrypto
import ClavisSQLite
import ClavisStore
import Dispatch
import Synchronization
import Testing

/// A TPM-bound keychain keeps a keyed digest of its rows beside its write count: an older copy of one row put back
/// into the current `keychain.db` (an item's, or the keybag's from before a passcode change) is refused on open.
@Suite(.serialized)
struct RowRollbackTests {
    private let account = ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("alice")])

    private func item(_ account: String, _ secret: String) -> NewItem {
        NewItem(
            itemClass: .genericPassword, attributes: [.account: .string(account)],
            secret: SecureBytes(Array(secret.utf8)))
    }

    @Test func olderCopyOfOneItemRowPutBackIsRefused() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        do {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            _ = try keychain.add(item("alice", "old password")).resultOrThrow()
            _ = try keychain.add(item("bob", "bob's")).resultOrThrow()
        }
        let older = try rows(of: "items", in: folder.home)
        do {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            #expect(
                try keychain.update(account, with: ItemChanges(secret: SecureBytes(Array("new".utf8)))).resultOrThrow()
                    == 1)
        }
        // The current file opens; then the attacker copies the older row's columns over the current row.
        _ = try Keychain(home: folder.home, deviceKeyOptions: options)
        try putBack(older, into: "items", key: "id", in: folder.home)
        let error = #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: options) }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.osStatus == -25295)
        #expect(error?.reason.contains("older copy of an item") == true)
        #expect(error?.reason.contains("old password") == false)
    }

    @Test func olderKeybagPutBackAfterAPasscodeChangeIsRefused() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        let leaked = SecureBytes(Array("leaked passcode".utf8))
        do {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            try keychain.setPasscode(leaked, current: nil, kdf: .cheapForTesting())
        }
        let olderKeybag = try rows(of: "keybag", in: folder.home)
        let olderKDF = try rows(of: "settings", in: folder.home).filter { $0[0] == .text("passcode_kdf") }
        do {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            try keychain.setPasscode(SecureBytes(Array("new passcode".utf8)), current: leaked, kdf: .cheapForTesting())
        }
        _ = try Keychain(home: folder.home, deviceKeyOptions: options)
        try putBack(olderKeybag, into: "keybag", key: "class", in: folder.home)
        try putBack(olderKDF, into: "settings", key: "name", in: folder.home)
        let error = #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: options) }
        #expect(error?.code == .invalidKeychain)
        #expect(error?.reason.contains("keybag") == true)
    }

    @Test func olderCountOfWrongPasscodesPutBackIsRefused() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        let passcode = SecureBytes(Array("passcode".utf8))
        do {
            try Keychain(home: folder.home, deviceKeyOptions: options).setPasscode(
                passcode, current: nil, kdf: .cheapForTesting())
        }
        let before = try rows(of: "settings", in: folder.home)
        do {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            for _ in 0..<3 {
                #expect(throws: KeychainError.self) { try keychain.unlock(passcode: SecureBytes(Array("guess".utf8))) }
            }
        }
        // Putting back the settings from before the guesses would give three more before a lockout.
        let connection = try Connection(path: folder.home.databasePath)
        try connection.execute("DELETE FROM settings WHERE name = 'passcode_failures'")
        #expect(!before.contains { $0[0] == .text("passcode_failures") })
        let error = #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: options) }
        #expect(error?.code == .invalidKeychain)
    }

    @Test func removedItemRowIsRefused() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        do {
            _ = try Keychain(home: folder.home, deviceKeyOptions: options).add(item("alice", "secret")).resultOrThrow()
        }
        let connection = try Connection(path: folder.home.databasePath)
        try connection.execute("DELETE FROM items")
        let error = #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: options) }
        #expect(error?.code == .invalidKeychain)
    }

    @Test func everyKindOfWriteKeepsTheDigestCurrent() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        let passcode = SecureBytes(Array("passcode".utf8))
        do {
            let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
            _ = try keychain.add(contentsOf: [item("alice", "a"), item("bob", "b"), item("carol", "c")]).resultOrThrow()
            #expect(
                try keychain.update(account, with: ItemChanges(secret: SecureBytes(Array("a2".utf8)))).resultOrThrow()
                    == 1)
            #expect(
                try keychain.delete(ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("bob")]))
                    .resultOrThrow()
                    == 1)
            try keychain.setPasscode(passcode, current: nil, kdf: .cheapForTesting())
            #expect(throws: KeychainError.self) { try keychain.unlock(passcode: SecureBytes(Array("wrong".utf8))) }
            try keychain.unlock(passcode: passcode)
            var onlyWithPasscode = item("dave", "d")
            onlyWithPasscode.attributes[.accessible] = .string(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)
            _ = try keychain.add(onlyWithPasscode).resultOrThrow()
            // Removing the passcode also erases the WhenPasscodeSetThisDeviceOnly item.
            try keychain.setPasscode(nil, current: passcode)
            #expect(try keychain.deleteAccessGroups(["unused group"]) == 0)
        }
        let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword, limit: .all)).resultOrThrow().count == 2)
    }

    /// Every row of `table`, read directly from the keychain's database.
    private func rows(of table: String, in home: KeychainHome) throws -> [[DatabaseValue]] {
        try Connection(path: home.databasePath).rows("SELECT * FROM \(table)")
    }

    /// Writes `rows` back over the rows of `table` with the same `key` (the first column), as someone with access
    /// to the file would.
    private func putBack(_ rows: [[DatabaseValue]], into table: String, key: String, in home: KeychainHome) throws {
        let connection = try Connection(path: home.databasePath)
        for row in rows {
            try connection.execute("DELETE FROM \(table) WHERE \(key) = ?", [row[0]])
            let placeholders = Array(repeating: "?", count: row.count).joined(separator: ", ")
            try connection.execute("INSERT INTO \(table) VALUES (\(placeholders))", row)
        }
    }
}

/// A keychain whose anti-rollback record was written before it held a state digest (44 bytes: index, count and
/// their code) still opens, and gets its digest at that open.
@Suite(.serialized)
struct RollbackRecordUpgradeTests {
    @Test func recordWithoutADigestIsGivenOneAtTheNextOpen() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        do {
            _ = try Keychain(home: folder.home, deviceKeyOptions: options).add(
                NewItem(
                    itemClass: .genericPassword, attributes: [.account: .string("alice")],
                    secret: SecureBytes(Array("secret".utf8)))
            ).resultOrThrow()
        }
        // Rewrite the record as the version before digests wrote it, authenticated as it authenticated it.
        let deviceKey = try TPMDeviceKey(
            path: folder.home.sealedDeviceKeyPath, tcti: tpm.tcti, generate: { SecureBytes([]) }
        ).deviceKey(creatingIfMissing: false)
        let key = try HKDFSHA256.deriveKey(
            from: deviceKey, salt: [], info: Array("clavis rollback counter".utf8), outputByteCount: 32)
        let connection = try Connection(path: folder.home.databasePath)
        let select = "SELECT value FROM settings WHERE name = 'rollback_counter'"
        let current = try #require(try connection.scalar(select)?.blob)
        #expect(current.count == 76)
        let body = Array(current.prefix(12))
        try connection.execute(
            "UPDATE settings SET value = ? WHERE name = 'rollback_counter'",
            [.blob(body + HMACSHA256.authenticationCode(for: body, key: key))])
        #expect(try connection.scalar(select)?.blob?.count == 44)

        let keychain = try Keychain(home: folder.home, deviceKeyOptions: options)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().count == 1)
        #expect(try connection.scalar(select)?.blob?.count == 76)
        // From then on the rows are checked: one removed is refused.
        try connection.execute("DELETE FROM items")
        #expect(throws: KeychainError.self) { try Keychain(home: folder.home, deviceKeyOptions: options) }
    }
}

/// Writers on separate connections (as separate processes are) keep one digest between them: each folds its rows
/// into the record it reads under SQLite's write lock.
@Suite(.serialized)
struct ConcurrentWritersDigestTests {
    @Test func twoConnectionsWritingAtOnceLeaveAKeychainThatOpens() throws {
        let tpm = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let options = DeviceKeyOptions(binding: .tpm, tcti: tpm.tcti)
        let writers = [
            try Keychain(home: folder.home, deviceKeyOptions: options),
            try Keychain(home: folder.home, deviceKeyOptions: options),
        ]
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: writers.count) { writer in
            do {
                for number in 0..<15 {
                    let account = ItemQuery(
                        itemClass: .genericPassword, attributes: [.account: .string("writer \(writer) item \(number)")])
                    _ = try writers[writer].add(
                        NewItem(
                            itemClass: .genericPassword, attributes: account.attributes,
                            secret: SecureBytes(Array("first".utf8)))
                    ).resultOrThrow()
                    _ = try writers[writer].update(
                        account, with: ItemChanges(secret: SecureBytes(Array("second".utf8)))
                    ).resultOrThrow()
                    if number % 3 == 0 { _ = try writers[writer].delete(account).resultOrThrow() }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let reopened = try Keychain(home: folder.home, deviceKeyOptions: options)
        #expect(try reopened.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().count == 20)
    }
}
