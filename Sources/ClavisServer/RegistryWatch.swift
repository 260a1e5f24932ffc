import ClavisIdentity
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The app registry as it is now: read again when its folder changed (a registration written, renamed into place or
/// removed, as `clavis app` does), so that no restart is needed.
final class RegistryWatch: Sendable {
    let folder: String
    /// The user who must own the registry (root in system mode), or `nil` to trust any.
    let owner: UInt32?
    private let state = Mutex<(version: Int64, registry: AppRegistry)?>(nil)

    init(folder: String, owner: UInt32?) {
        self.folder = folder
        self.owner = owner
    }

    /// The registry, read again when the folder's modification time moved.
    var current: AppRegistry {
        var info = stat()
        let version =
            stat(folder, &info) == 0
            ? Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec) : -1
        return state.withLock { state in
            if let state, state.version == version { return state.registry }
            let (registry, problems) = AppRegistry.load(folder: folder, owner: owner)
            for problem in problems { DaemonLog.report(problem + "; skipped") }
            if let earlier = state?.registry { Self.reportChanges(from: earlier, to: registry) }
            state = (version, registry)
            return registry
        }
    }

    /// Logs the apps registered and removed between two readings; a removed app's items stay (`clavis app remove
    /// --delete-items` deletes them), so that registering the same application identifier again brings them back.
    private static func reportChanges(from earlier: AppRegistry, to now: AppRegistry) {
        let before = Set(earlier.apps.values.map(\.applicationIdentifier))
        let after = Set(now.apps.values.map(\.applicationIdentifier))
        for removed in before.subtracting(after).sorted() {
            DaemonLog.report(
                "app \(removed) is no longer registered; its items stay until the same application identifier is"
                    + " registered again or they are deleted (clavis app remove --delete-items)")
        }
        for added in after.subtracting(before).sorted() {
            DaemonLog.report("app \(added) is registered")
        }
    }
}
