import ClavisCore
import ClavisSQLite
import Foundation
import Testing

@testable import ClavisStore

/// The read transaction a keychain keeps open for a moment after a read (`ReadPin`): it must never stop another
/// process from starting the log over or checkpointing it for longer than that moment, and never hide a change.
///
/// Each test asks SQLite itself whether a pin is held (`pinIsHeld`): after a write on a connection of the test's own,
/// a `PASSIVE` checkpoint copies back the whole log only when no reader's snapshot is older than that write, whichever
/// read slot the reader holds. The keychains keep their pins for ten minutes unless a test is about the check that
/// gives one back, whose wait is SQLite's busy handler retrying until the pin is gone: no test sleeps or races a
/// timer.
@Suite struct ReadPinTests {
    let temporary = TemporaryHome()

    /// A keychain in the test's home whose pins last `milliseconds`.
    private func open(keepingPinsFor milliseconds: Int = 600_000) throws -> Keychain {
        let (provider, _) = try DeviceKeySelection.provider(for: temporary.home, options: .file)
        return try Keychain(home: temporary.home, deviceKeyProvider: provider, readPinMilliseconds: milliseconds)
    }

    /// Whether a `TRUNCATE` checkpoint, waiting at most `waitingMilliseconds` for readers, started the log over.
    private func logStartsOver(waitingMilliseconds: Int32 = 0) throws -> Bool {
        let checkpointer = try Connection(
            path: temporary.home.databasePath, mode: .readWrite, busyTimeoutMilliseconds: waitingMilliseconds)
        let row = try #require(try checkpointer.rows("PRAGMA wal_checkpoint(TRUNCATE)").first)
        return row.first?.integer == 0
    }

    /// Whether a reader of the keychain holds a snapshot older than a write made now, which leaves a frame in the log
    /// that a `PASSIVE` checkpoint then cannot copy back.
    private func pinIsHeld() throws -> Bool {
        try writeFromOutside()
        let checkpoint = try passiveCheckpoint()
        return checkpoint.copied < checkpoint.log
    }

    /// A write on a connection of the test's own, to a header field Clavis does not use.
    private func writeFromOutside() throws {
        let writer = try Connection(path: temporary.home.databasePath, mode: .readWrite)
        try writer.executeScript("PRAGMA user_version = \(Int32.random(in: 1...Int32.max));")
    }

    /// A `PASSIVE` checkpoint's frames in the log and frames copied back.
    private func passiveCheckpoint() throws -> (log: Int64, copied: Int64) {
        let checkpointer = try Connection(path: temporary.home.databasePath, mode: .readWrite)
        let row = try #require(try checkpointer.rows("PRAGMA wal_checkpoint(PASSIVE)").first)
        return (row[1].integer ?? -1, row[2].integer ?? -2)
    }

    private func logSize() -> Int {
        let path = temporary.home.databasePath + "-wal"
        return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    private func read(_ keychain: Keychain, _ account: String) throws -> String? {
        try keychain.find(query(account: account)).resultOrThrow().first?.secret?.string
    }

    @Test func aSingleReadTakesNoPin() throws {
        let keychain = try open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        #expect(try read(keychain, "a") == "s3cret")
        #expect(try !pinIsHeld(), "a command reading once took a pin")
    }

    /// As `clavis find-generic-password` reads: the passcode's lockout (its status), then one item.
    @Test func aSettingReadBesideOneItemReadTakesNoPin() throws {
        let keychain = try open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        for _ in 0..<2 { #expect(try keychain.passcodeLockout == nil) }
        #expect(try read(keychain, "a") == "s3cret")
        #expect(try !pinIsHeld(), "a read of a setting counted towards the pin")
        #expect(try read(keychain, "a") == "s3cret")
        #expect(try pinIsHeld(), "the second item read took no pin")
    }

    @Test func aSettingReadThatSeesAnotherConnectionsChangeGivesThePinBack() throws {
        let keychain = try open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        for _ in 0..<2 { _ = try read(keychain, "a") }
        try writeFromOutside()
        #expect(try keychain.passcodeLockout == nil)
        #expect(try !pinIsHeld(), "the read of a setting kept the pin after another connection's change")
    }

    @Test func aSecondReadTakesThePin() throws {
        let keychain = try open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        for _ in 0..<2 { #expect(try read(keychain, "a") == "s3cret") }
        #expect(try pinIsHeld(), "the second read took no pin")
    }

    @Test func theCheckGivesThePinBack() throws {
        let keychain = try open(keepingPinsFor: ReadPin.defaultIdleMilliseconds)
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        for _ in 0..<3 { #expect(try read(keychain, "a") == "s3cret") }
        // With a frame to copy back, the checkpoint needs every read slot: SQLite's busy handler retries until the
        // check, 200 ms after the pin was taken, gives it back.
        try writeFromOutside()
        #expect(try logStartsOver(waitingMilliseconds: 30_000))
        #expect(logSize() == 0)
    }

    @Test func aWriteGivesThePinBackAndTheNextReadTakesItAgain() throws {
        let keychain = try open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        for _ in 0..<2 { _ = try read(keychain, "a") }
        #expect(try pinIsHeld(), "the reads left no pin")
        _ = try keychain.add(password(account: "b")).resultOrThrow()
        #expect(try !pinIsHeld(), "the write kept the pin")
        #expect(try read(keychain, "b") == "s3cret")
        #expect(try pinIsHeld(), "the read after the write took no pin")
    }

    @Test func anotherConnectionsChangeMakesTheReaderGiveThePinBack() throws {
        let reader = try open()
        _ = try reader.add(password(account: "a", secret: "first")).resultOrThrow()
        for _ in 0..<2 { #expect(try read(reader, "a") == "first") }
        let writer = try open()
        let changed = try writer.update(query(account: "a"), with: ItemChanges(secret: "second".secret))
        #expect(try changed.resultOrThrow() == 1)
        #expect(try read(reader, "a") == "second")
        // While another connection writes, the reader holds nothing back: every frame can be copied back.
        #expect(try !pinIsHeld(), "the reader kept a pin while another connection wrote")
        #expect(try read(reader, "a") == "second")
        #expect(try !pinIsHeld(), "the reader took a pin again before the check")
    }

    @Test func noPinIsTakenOverALogThatGrewPastItsLimit() throws {
        let keychain = try open()
        _ = try keychain.add(password(account: "seed")).resultOrThrow()
        // A reader of the test's own holds the log from starting over while the keychain writes past the limit.
        let holder = try Connection(path: temporary.home.databasePath, mode: .readWrite)
        try holder.executeScript("BEGIN; SELECT count(*) FROM items;")
        var added = 0
        while logSize() <= KeychainDatabaseSettings.logSizeLimit {
            let item = password(account: "grow-\(added)", secret: String(repeating: "x", count: 2000))
            _ = try keychain.add(item).resultOrThrow()
            added += 1
            try #require(added < 2000, "the log never grew past its limit")
        }
        try holder.executeScript("COMMIT;")
        for _ in 0..<2 { #expect(try keychain.find(query(account: "seed")).resultOrThrow().count == 1) }
        #expect(try !pinIsHeld(), "a pin was taken over an oversized log")
    }

    @Test func thePinNeverOpensAnotherFileInTheFoldersPlace() throws {
        let keychain = try open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        #expect(try read(keychain, "a") == "s3cret")
        // The folder moves away and another takes its name, with another database under keychain.db's name. The
        // keychain's own connection still has the file it opened.
        let home = temporary.home.path
        #expect(rename(home, home + ".moved") == 0)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let other = try Connection(path: temporary.home.databasePath, busyTimeoutMilliseconds: 0)
        try other.executeScript("CREATE TABLE schema_version (version INTEGER); INSERT INTO schema_version VALUES (1);")
        #expect(try read(keychain, "a") == "s3cret")
        // A pin on the other database would hold its shared lock, and this write would find it busy.
        try other.executeScript("INSERT INTO schema_version VALUES (2);")
    }
}
