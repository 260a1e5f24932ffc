internal import ClavisSQLite

/// The writes that keep a TPM-bound keychain's state digest (`StateDigest`, held by the `RollbackCounter` record)
/// current: each folds the code of every row it changes, as it was and as it is, in the write's transaction. A
/// keychain bound to a file keeps no digest, and its writes run as they are.
extension KeychainEngine {
    /// Runs `change`, a write to the `items` row `rowID` (or, for `nil`, an insert), which returns the row's id after
    /// it (`nil` once deleted), and folds the row's code before and after into the state digest.
    @discardableResult
    func changingItemRow(_ rowID: Int64?, _ change: () throws -> Int64?) throws -> Int64? {
        guard let counter = rollbackCounter, counter.tracksState else { return try change() }
        return try connection.transaction {
            let before = try rowID.map { try counter.state.itemRowCode($0, in: connection) }
            let after = try change()
            let codes = [before, try after.map { try counter.state.itemRowCode($0, in: connection) }]
            try counter.foldIntoState(codes.compactMap { $0 }, connection)
            return after
        }
    }

    /// Deletes the `items` rows `condition` selects, folding each out of the state digest.
    func deleteItemRows(where condition: String, _ values: [DatabaseValue]) throws {
        if let counter = rollbackCounter, counter.tracksState {
            try connection.transaction {
                var codes: [[UInt8]] = []
                try connection.forEachRow("SELECT id FROM items WHERE \(condition)", values) { row in
                    if let rowID = row[0].integer { codes.append(try counter.state.itemRowCode(rowID, in: connection)) }
                    return true
                }
                try connection.execute("DELETE FROM items WHERE \(condition)", values)
                try counter.foldIntoState(codes, connection)
            }
        } else {
            try connection.execute("DELETE FROM items WHERE \(condition)", values)
        }
    }

    /// Runs `change` in a transaction, a write to the keybag (its wrapped class keys, the passcode's KDF or the count
    /// of wrong passcodes), and folds the keybag's code before and after into the state digest; a call nested in
    /// another leaves the folding to the outer one.
    func changingKeybag<Result>(_ change: () throws -> Result) throws -> Result {
        guard let counter = rollbackCounter, counter.tracksState, !isChangingKeybag else {
            return try connection.transaction(change)
        }
        isChangingKeybag = true
        defer { isChangingKeybag = false }
        return try connection.transaction {
            let before = try counter.state.keybagCode(connection)
            let result = try change()
            try counter.foldIntoState([before, try counter.state.keybagCode(connection)], connection)
            return result
        }
    }
}
