import ClavisCore

extension TemporaryKeychain {
    /// Deletes the app under test. Its items stay by default (as on iOS), and come back with `reinstallApp()`; with
    /// `deletingItems`, the items of every group of the app that none of `otherApps` holds are deleted, as
    /// `clavis app remove --delete-items` does. How many items were deleted.
    ///
    /// Until `reinstallApp()`, a `run(_:)` begun after this call reaches the keychain as a program holding none of
    /// the app's groups.
    @discardableResult
    public func deleteApp(deletingItems: Bool = false) throws(KeychainError) -> Int {
        state.withLock { $0.installed = false }
        try writeRegistrations(appInstalled: false)
        guard deletingItems else { return 0 }
        // A private daemon decides by its own registry, where the other apps are registered; embedded, the kit does.
        let held = daemon == nil ? Set(otherApps.flatMap(\.allAccessGroups)) : []
        return try client().purgeAccessGroups(app.allAccessGroups.filter { !held.contains($0) }).deleted
    }

    /// Installs the app again with the same application identifier: the items its deletion left are its own again
    /// (from the next `run(_:)` on).
    ///
    /// - Throws: with a private daemon, `io` when its registry cannot be written.
    public func reinstallApp() throws(KeychainError) {
        state.withLock { $0.installed = true }
        try writeRegistrations(appInstalled: true)
    }
}
