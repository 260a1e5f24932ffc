import ClavisCore
import ClavisSQLite
import ClavisStore
import FoundationEssentials
import Testing

/// A keychain from the future: written by a build whose schema or sealing format is newer than this one's. This
/// build refuses it with both versions named, and neither misreads it nor changes it.
@Suite struct DowngradeGuardTests {
    let temporary = TemporaryHome()

    /// The newest schema version this build migrates to, read from a keychain it has just created.
    private func currentSchemaVersion() throws -> Int64 {
        try #require(
            try StoreInspector(temporary.home).connection.scalar("SELECT MAX(version) FROM schema_version")?
                .integer)
    }

    @Test func aKeychainWithANewerSchemaIsRefusedNamingBothVersions() throws {
        do {
            let keychain = try temporary.open()
            _ = try keychain.add(password(account: "alice")).resultOrThrow()
        }
        let current = try currentSchemaVersion()
        let future = current + 1
        try StoreInspector(temporary.home).connection.execute(
            "INSERT INTO schema_version (version) VALUES (?)", [.integer(future)])
        let before = temporary.contents(of: "keychain.db")

        let error = try #require(Self.refusal { _ = try temporary.open() })
        #expect(error.code == .invalidKeychain)
        #expect(error.reason.contains("schema version \(future), newer than this build's \(current)"), "\(error)")
        #expect(error.reason.contains(temporary.home.databasePath))
        #expect(temporary.contents(of: "keychain.db") == before)
        #expect(
            try StoreInspector(temporary.home).connection.scalar("SELECT MAX(version) FROM schema_version")?
                .integer == future)
    }

    @Test func aKeychainWithANewerSchemaOnAReadOnlyFileSystemIsRefusedToo() throws {
        let fileSystem = try SmallFileSystem()
        do {
            let keychain = try Keychain(home: fileSystem.home)
            _ = try keychain.add(password(account: "alice")).resultOrThrow()
            let inspector = try StoreInspector(fileSystem.home)
            let current = try #require(
                try inspector.connection.scalar("SELECT MAX(version) FROM schema_version")?.integer)
            try inspector.connection.execute(
                "INSERT INTO schema_version (version) VALUES (?)", [.integer(current + 1)])
        }
        try fileSystem.remount(readOnly: true)
        defer { try? fileSystem.remount(readOnly: false) }
        let error = try #require(Self.refusal { _ = try Keychain(home: fileSystem.home) })
        #expect(error.code == .invalidKeychain, "\(error)")
        #expect(error.reason.contains("newer than this build's"), "\(error)")
    }

    @Test func aRowSealedInANewerFormatIsRefusedNotMisread() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "alice")).resultOrThrow()
        _ = try keychain.add(password(account: "bob")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let newest = try #require(try inspector.connection.scalar("SELECT max(sealing) FROM items")?.integer)
        let future = newest + 6
        let bob = try #require(try inspector.itemIDs().last)
        try inspector.connection.execute(
            "UPDATE items SET sealing = ? WHERE id = ?", [.integer(future), .integer(bob)])

        // Read, updated or deleted, the row answers that a newer build wrote it.
        let operations: [(String, () throws -> Void)] = [
            ("read", { _ = try keychain.find(query(account: "bob")).resultOrThrow() }),
            (
                "update",
                {
                    _ = try keychain.update(query(account: "bob"), with: ItemChanges(secret: "new".secret))
                        .resultOrThrow()
                }
            ),
            ("delete", { _ = try keychain.delete(query(account: "bob")).resultOrThrow() }),
        ]
        for (operation, body) in operations {
            let error = try #require(Self.refusal(body), "\(operation)")
            #expect(error.code == .invalidKeychain, "\(operation)")
            #expect(error.reason.contains("format \(future), newer than this build's \(newest)"), "\(error)")
        }
        #expect(try inspector.itemIDs().contains(bob))
        // The rows this build wrote still read, and a listing passes over the one it cannot.
        #expect(try keychain.find(query(account: "alice")).resultOrThrow().first?.secret?.string == "s3cret")
        let listing = try keychain.find(ItemQuery(itemClass: .genericPassword, limit: .all)).resultOrThrow()
        #expect(listing.compactMap { $0.attributes[.account]?.stringValue } == ["alice"])
    }

    /// The keychain error `body` threw, or nil when it threw none.
    private static func refusal(_ body: () throws -> Void) -> KeychainError? {
        do {
            try body()
            return nil
        } catch {
            return error as? KeychainError
        }
    }
}
