import ClavisCore
import ClavisSQLite
import ClavisSystem
import Foundation
import Testing

@testable import ClavisStore

/// SQLite opens `keychain.db` by path: whatever it opened must be the file the open keychain folder holds.
@Suite struct SwappedFileTests {
    @Test func aDatabaseOtherThanTheFoldersOwnIsRefused() throws {
        let mine = TemporaryHome()
        let other = TemporaryHome()
        _ = try mine.open()
        _ = try other.open()
        let folder = try KeychainFolder(mine.home.path)
        // As if the folder had been swapped between its check and SQLite's open.
        do {
            _ = try KeychainEngine.openDatabase(in: folder, home: mine.home, path: other.home.databasePath)
            Issue.record("opened another folder's database")
        } catch let error as KeychainError {
            #expect(error.code == .io)
            #expect(error.reason.contains("replaced"), "\(error.reason)")
        }
        let (connection, refusal) = try KeychainEngine.openDatabase(in: folder, home: mine.home)
        #expect(refusal == nil)
        #expect(try connection.scalar("SELECT count(*) FROM settings")?.integer ?? 0 > 0)
    }

    @Test func aConnectionKnowsWhichFileItOpened() throws {
        let home = TemporaryHome()
        _ = try home.open()
        let connection = try Connection(path: home.home.databasePath)
        var status = stat()
        #expect(stat(home.home.databasePath, &status) == 0)
        let identity = try #require(connection.databaseFileIdentity)
        #expect(identity.device == UInt64(status.st_dev) && identity.inode == UInt64(status.st_ino))
    }

    @Test func aKeychainBelowAFolderAnyUserMayWriteWithoutTheStickyBitIsRefused() throws {
        let temporary = TemporaryHome()
        let open = try KeychainFolder(temporary.home.path)
        _ = try open.resolvedPath()
        let parent = PathParts(temporary.home.path).folder
        chmod(parent, 0o777)
        do {
            _ = try temporary.open()
            Issue.record("opened a keychain below a folder anyone may write")
        } catch let error as KeychainError {
            #expect(error.code == .io && error.reason.contains(parent) && error.reason.contains("sticky"))
        }
        chmod(parent, 0o1777)
        #expect(status { try temporary.open() } == nil, "the sticky bit keeps others from renaming it")
    }
}
