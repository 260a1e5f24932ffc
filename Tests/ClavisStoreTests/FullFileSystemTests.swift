import ClavisCore
import ClavisSQLite
import ClavisStore
import Foundation
import Testing

/// A keychain whose file system fills up, empties again or turns read-only while one process uses it.
@Suite(.serialized) struct FullFileSystemTests {
    @Test func anErrorAfterTheDiskWasFullIsNotTakenForAFullDisk() throws {
        let fileSystem = try SmallFileSystem()
        let path = fileSystem.mountPoint + "/plain.db"
        do {
            let creating = try Connection(path: path)
            try creating.enableWriteAheadLogging()
            try creating.executeScript("CREATE TABLE t (k TEXT UNIQUE); INSERT INTO t VALUES ('a')")
        }
        try fileSystem.fillUp()
        let connection = try Connection(path: path)
        // SQLite cannot create its shared-memory index: an I/O error carrying ENOSPC.
        do {
            _ = try connection.scalar("SELECT count(*) FROM t")
            Issue.record("read the database without room for its index")
        } catch let error as DatabaseError {
            #expect(error.isDiskFull, "\(error)")
        }
        fileSystem.makeRoom()
        #expect(try connection.scalar("SELECT count(*) FROM t")?.integer == 1)
        // SQLite never clears the errno it kept: a later error of another kind must not carry it.
        do {
            try connection.execute("INSERT INTO t VALUES ('a')")
            Issue.record("inserted a duplicate")
        } catch let error as DatabaseError {
            #expect(error.isUniquenessViolation)
            #expect(!error.isDiskFull && !error.isReadOnly && error.systemErrorNumber == 0, "\(error)")
        }
    }

    @Test func aDuplicateAfterTheDiskWasFullIsADuplicateNotAFullDisk() throws {
        let fileSystem = try SmallFileSystem()
        let keychain = try Keychain(home: fileSystem.home)
        _ = try keychain.add(password(account: "first")).resultOrThrow()
        try fileSystem.fillUp()
        let big = password(account: "big", secret: String(repeating: "x", count: 8192))
        try #require(status { try keychain.add(big).resultOrThrow() } == .diskFull)
        fileSystem.makeRoom()
        #expect(status { try keychain.add(password(account: "first")).resultOrThrow() } == .duplicateItem)
        #expect(status { try keychain.add(big).resultOrThrow() } == nil)
    }

    @Test func aKeychainOpenedOnAFullDiskAcceptsWritesOnceThereIsRoomAgain() throws {
        let fileSystem = try SmallFileSystem()
        _ = try Keychain(home: fileSystem.home).add(password(account: "first")).resultOrThrow()
        try fileSystem.fillUp()
        let keychain = try Keychain(home: fileSystem.home)
        #expect(try keychain.find(query(account: "first")).resultOrThrow().first?.secret?.string == "s3cret")
        #expect(status { try keychain.add(password(account: "second")).resultOrThrow() } == .diskFull)
        fileSystem.makeRoom()
        #expect(status { try keychain.add(password(account: "second")).resultOrThrow() } == nil)
        #expect(status { try keychain.add(password(account: "first")).resultOrThrow() } == .duplicateItem)
        #expect(try keychain.delete(query(account: "first")).resultOrThrow() == 1)
        #expect(try keychain.find(query(account: "second")).resultOrThrow().first?.secret?.string == "s3cret")
    }

    @Test func aKeychainOnAReadOnlyFileSystemReadsAndRefusesWritesNamingTheFolder() throws {
        let fileSystem = try SmallFileSystem()
        _ = try Keychain(home: fileSystem.home).add(password(account: "first")).resultOrThrow()
        try fileSystem.remount(readOnly: true)
        let keychain = try Keychain(home: fileSystem.home)
        #expect(try keychain.find(query(account: "first")).resultOrThrow().first?.secret?.string == "s3cret")
        do {
            _ = try keychain.add(password(account: "second")).resultOrThrow()
            Issue.record("added an item on a read-only file system")
        } catch {
            #expect(error.code == .io)
            #expect(error.reason.contains(fileSystem.home.path) && error.reason.contains("read-only file system"))
        }
        try fileSystem.remount(readOnly: false)
        #expect(status { try keychain.add(password(account: "second")).resultOrThrow() } == nil)
    }
}
