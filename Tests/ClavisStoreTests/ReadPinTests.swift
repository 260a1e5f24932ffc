import ClavisCore
import ClavisSQLite
import ClavisStore
import Foundation
import Testing

/// The read transaction a keychain keeps open between its reads (`ReadPin`): it must never stop another process
/// from starting the log over for longer than a burst of reads, and never hide a change from a read.
///
/// Each test asks SQLite itself whether the pin is held: a `TRUNCATE` checkpoint on a connection of its own starts
/// the log over only when no connection reads it. With no busy timeout it answers at once; with one, SQLite's busy
/// handler waits until the pin is given back, so the tests wait on that event rather than on a timer of their own.
@Suite struct ReadPinTests {
    let temporary = TemporaryHome()

    /// Whether a `TRUNCATE` checkpoint on a connection of its own, waiting at most `waitingMilliseconds` for readers,
    /// started the log over (SQLite's `busy` column is 0).
    private func logStartsOver(_ home: KeychainHome, waitingMilliseconds: Int32) throws -> Bool {
        let checkpointer = try Connection(
            path: home.databasePath, mode: .readWrite, busyTimeoutMilliseconds: waitingMilliseconds)
        let row = try #require(try checkpointer.rows("PRAGMA wal_checkpoint(TRUNCATE)").first)
        return row.first?.integer == 0
    }

    private func logSize(_ home: KeychainHome) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: home.databasePath + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test func aSingleReadTakesNoPin() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        #expect(try keychain.find(query(account: "a")).resultOrThrow().first?.secret?.string == "s3cret")
        #expect(try logStartsOver(temporary.home, waitingMilliseconds: 0), "a command reading once took a pin")
    }

    @Test func readsKeepThePinUntilTheProcessStopsReading() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        for _ in 0..<2 {
            #expect(try keychain.find(query(account: "a")).resultOrThrow().first?.secret?.string == "s3cret")
        }
        #expect(try !logStartsOver(temporary.home, waitingMilliseconds: 0), "the reads left no pin")
        // SQLite's busy handler retries until the pin is given back, `ReadPin.idleMilliseconds` after the read.
        #expect(try logStartsOver(temporary.home, waitingMilliseconds: 30_000))
        #expect(logSize(temporary.home) == 0)
    }

    @Test func aWriteGivesThePinBack() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        for _ in 0..<2 { _ = try keychain.find(query(account: "a")).resultOrThrow() }
        #expect(try !logStartsOver(temporary.home, waitingMilliseconds: 0), "the reads left no pin")
        _ = try keychain.add(password(account: "b")).resultOrThrow()
        #expect(try logStartsOver(temporary.home, waitingMilliseconds: 0), "the write kept the pin")
    }

    @Test func aReadSeesAnotherConnectionsChangeWhileThePinIsHeld() throws {
        let reader = try temporary.open()
        _ = try reader.add(password(account: "a", secret: "first")).resultOrThrow()
        for _ in 0..<2 {
            #expect(try reader.find(query(account: "a")).resultOrThrow().first?.secret?.string == "first")
        }
        let writer = try Keychain(home: temporary.home)
        #expect(try writer.update(query(account: "a"), with: ItemChanges(secret: "second".secret)).resultOrThrow() == 1)
        #expect(try reader.find(query(account: "a")).resultOrThrow().first?.secret?.string == "second")
        _ = try writer.add(password(account: "b", secret: "third")).resultOrThrow()
        #expect(try reader.find(query(account: "b")).resultOrThrow().first?.secret?.string == "third")
        // The pin followed the changes: once given back, nothing else holds the log.
        #expect(try logStartsOver(temporary.home, waitingMilliseconds: 30_000))
    }

    @Test func noPinIsTakenOverALogThatGrewPastItsLimit() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "seed")).resultOrThrow()
        // A reader of its own holds the log from starting over while the keychain writes more than a mebibyte.
        let holder = try Connection(path: temporary.home.databasePath, mode: .readWrite)
        try holder.executeScript("BEGIN; SELECT count(*) FROM items;")
        var added = 0
        while logSize(temporary.home) <= 1_048_576 {
            _ = try keychain.add(password(account: "grow-\(added)", secret: String(repeating: "x", count: 2000)))
                .resultOrThrow()
            added += 1
            try #require(added < 2000, "the log never grew past its limit")
        }
        try holder.executeScript("COMMIT;")
        for _ in 0..<2 { #expect(try keychain.find(query(account: "seed")).resultOrThrow().count == 1) }
        #expect(try logStartsOver(temporary.home, waitingMilliseconds: 0), "a pin was taken over an oversized log")
    }
}
