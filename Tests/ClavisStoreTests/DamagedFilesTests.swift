import ClavisCore
import ClavisSQLite
import ClavisStore
import FoundationEssentials
import Testing

@Suite struct DamagedFilesTests {
    let temporary = TemporaryHome()

    private func populated() throws {
        let keychain = try temporary.open()
        for index in 0..<50 {
            _ = try keychain.add(password(account: "a\(index)", secret: String(repeating: "x", count: 500)))
                .resultOrThrow()
        }
    }

    private func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: temporary.home.path + "/" + name))
    }

    @Test func truncatedDatabaseIsInvalidKeychain() throws {
        try populated()
        try? FileManager.default.removeItem(atPath: temporary.home.databasePath + "-wal")
        try? FileManager.default.removeItem(atPath: temporary.home.databasePath + "-shm")
        let bytes = temporary.contents(of: "keychain.db")
        try write(Array(bytes.prefix(bytes.count / 3)), to: "keychain.db")
        let result = status {
            let keychain = try temporary.open()
            _ = try keychain.find(ItemQuery(itemClass: .genericPassword, returnsSecret: true)).resultOrThrow()
        }
        #expect(result == .invalidKeychain)
    }

    @Test func garbageDatabaseIsInvalidKeychain() throws {
        try FileManager.default.createDirectory(atPath: temporary.home.path, withIntermediateDirectories: true)
        try write(Array(repeating: 0x41, count: 8192), to: "keychain.db")
        #expect(status { try temporary.open() } == .invalidKeychain)
    }

    @Test func foreignSQLiteDatabaseIsInvalidKeychainAndLeftUntouched() throws {
        try FileManager.default.createDirectory(atPath: temporary.home.path, withIntermediateDirectories: true)
        let foreign = try Connection(path: temporary.home.databasePath)
        try foreign.executeScript("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
        #expect(status { try temporary.open() } == .invalidKeychain)
        #expect(try foreign.scalar("SELECT body FROM notes")?.text == "mine")
        #expect(try foreign.scalar("SELECT count(*) FROM sqlite_master")?.integer == 1)
    }

    @Test func missingDeviceKeyIsInvalidKeychainAndNeverReplaced() throws {
        try populated()
        try FileManager.default.removeItem(atPath: temporary.home.deviceKeyPath)
        #expect(status { try temporary.open() } == .invalidKeychain)
        #expect(!FileManager.default.fileExists(atPath: temporary.home.deviceKeyPath))
    }

    @Test func wrongSizedDeviceKeyIsInvalidKeychain() throws {
        try populated()
        try write(Array(repeating: 1, count: 31), to: "device.key")
        #expect(status { try temporary.open() } == .invalidKeychain)
        try write(Array(repeating: 1, count: 64), to: "device.key")
        #expect(status { try temporary.open() } == .invalidKeychain)
    }

    @Test func anotherMachinesDeviceKeyCannotOpenTheKeychain() throws {
        try populated()
        try write(Array(repeating: 7, count: 32), to: "device.key")
        do {
            _ = try temporary.open()
            Issue.record("opened with a foreign device key")
        } catch let error as KeychainError {
            #expect(error.code == .invalidKeychain)
            #expect(error.reason.contains("device.key"))
        }
    }

    @Test func errorReasonsNeverQuoteSecretsOrAccounts() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "ACCOUNT-XYZ", secret: "SECRET-XYZ")).resultOrThrow()
        do {
            _ = try keychain.add(password(account: "ACCOUNT-XYZ", secret: "SECRET-XYZ")).resultOrThrow()
            Issue.record("a duplicate was added")
        } catch {
            #expect(error.code == .duplicateItem)
            #expect(!error.description.contains("XYZ"))
        }
    }
}
