import ClavisCore
import FoundationEssentials

/// The app registry's folder as a place to write: one `<application-identifier>.json` file per app, each written
/// through a temporary file renamed into place (mode 0644; the folder is the administrator's in system mode).
public struct RegistryFolder: Sendable {
    /// The folder.
    public let path: String

    /// The registry in `path`.
    public init(path: String) { self.path = path }

    /// The registry a caller of this user edits by default: the system one (`/etc/clavis/apps.d`) for root, else
    /// the user's (`$XDG_CONFIG_HOME/clavis/apps.d`, else `~/.config/clavis/apps.d`).
    public static func standard(isRoot: Bool, configHome: String?, home: String) -> RegistryFolder {
        if isRoot { return RegistryFolder(path: "/etc/clavis/apps.d") }
        return RegistryFolder(path: (configHome ?? home + "/.config") + "/clavis/apps.d")
    }

    /// Registers `app`, replacing an earlier registration of the same application identifier or executable.
    ///
    /// - Throws: `io` naming the file when it cannot be written.
    public func register(_ app: AppRegistry.App) throws(KeychainError) {
        let existing = AppRegistry.load(folder: path).registry
        for other in existing.apps.values where other.executable == app.executable {
            try remove(applicationIdentifier: other.applicationIdentifier)
        }
        let file = path + "/" + Self.fileName(for: app.applicationIdentifier)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(app).write(to: URL(filePath: file), options: .atomic)
        } catch {
            throw KeychainError(.io, "cannot write the registration \(file): \(error)")
        }
    }

    /// Removes the registration of `applicationIdentifier` (or of the executable at that path); false when none.
    @discardableResult
    public func remove(applicationIdentifier: String) throws(KeychainError) -> Bool {
        try removeRegistration(of: applicationIdentifier) != nil
    }

    /// Removes the registration of `name` (an application identifier, or the executable at that path) and returns
    /// what it was, with the groups no app still registered holds (those whose items
    /// `KeychainService.purgeAccessGroups` may delete); `nil` when none was registered.
    public func removeRegistration(of name: String) throws(KeychainError)
        -> (app: AppRegistry.App, unsharedGroups: [String])?
    {
        let registry = AppRegistry.load(folder: path).registry
        guard
            let app = registry.apps.values.first(where: {
                $0.applicationIdentifier == name || $0.executable == name
            })
        else { return nil }
        let file = registry.files[app.executable] ?? path + "/" + Self.fileName(for: app.applicationIdentifier)
        do {
            try FileManager.default.removeItem(atPath: file)
        } catch {
            throw KeychainError(.io, "cannot remove the registration \(file): \(error)")
        }
        let held = AppRegistry.load(folder: path).registry.heldAccessGroups
        return (app, app.accessGroups.filter { !held.contains($0) })
    }

    /// A file name for an application identifier: its letters, digits, dots, dashes and underscores.
    static func fileName(for applicationIdentifier: String) -> String {
        let allowed = applicationIdentifier.map { character -> Character in
            character.isLetter || character.isNumber || "._-".contains(character) ? character : "_"
        }
        return String(allowed) + ".json"
    }
}
