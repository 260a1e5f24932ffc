import ClavisCore
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The apps clavisd knows: each maps an executable (and optionally its SHA-256) to the entitlements an Xcode
/// `.entitlements` file would give it. One JSON file per app in the registry folder
/// (`/etc/clavis/apps.d/` in system mode, `~/.config/clavis/apps.d/` in user mode):
///
/// ```json
/// {"executable": "/usr/bin/example", "sha256": "…64 hex digits…",
///  "application-identifier": "TEAM.com.example.app", "keychain-access-groups": ["TEAM.com.example.shared"],
///  "com.apple.security.application-groups": ["group.com.example"]}
/// ```
///
/// An executable no file names gets its own identity derived from its path: one private group, no shared ones. A
/// registered executable whose contents no longer match its `sha256` loses its registered groups and is treated as
/// unregistered.
public struct AppRegistry: Sendable {
    /// One registered app.
    public struct App: Sendable, Hashable, Codable {
        /// The executable's absolute path.
        public var executable: String
        /// The SHA-256 of the executable's contents, lowercase hexadecimal; `nil` trusts the path alone.
        public var sha256: String?
        /// The app's `application-identifier`.
        public var applicationIdentifier: String
        /// The app's `keychain-access-groups`.
        public var keychainAccessGroups: [String]
        /// The app's `com.apple.security.application-groups`, access groups after the others.
        public var applicationGroups: [String]
        /// `keychain-administrator`: the app may set, change or remove the keychain passcode.
        public var keychainAdministrator: Bool
        /// `clavis.secret-service.shared` (default true): through the Secret Service, the app's items go to the group
        /// every Secret Service client shares; false keeps them in its own groups, out of the others' sight.
        public var sharesSecretService: Bool

        enum CodingKeys: String, CodingKey {
            case executable, sha256
            case applicationIdentifier = "application-identifier"
            case keychainAccessGroups = "keychain-access-groups"
            case applicationGroups = "com.apple.security.application-groups"
            case keychainAdministrator = "keychain-administrator"
            case sharesSecretService = "clavis.secret-service.shared"
        }

        /// Reads a registration; `sha256` and `keychain-access-groups` may be left out.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            executable = try container.decode(String.self, forKey: .executable)
            sha256 = try container.decodeIfPresent(String.self, forKey: .sha256)
            applicationIdentifier = try container.decode(String.self, forKey: .applicationIdentifier)
            keychainAccessGroups = try container.decodeIfPresent([String].self, forKey: .keychainAccessGroups) ?? []
            applicationGroups = try container.decodeIfPresent([String].self, forKey: .applicationGroups) ?? []
            keychainAdministrator = try container.decodeIfPresent(Bool.self, forKey: .keychainAdministrator) ?? false
            sharesSecretService = try container.decodeIfPresent(Bool.self, forKey: .sharesSecretService) ?? true
        }

        /// Creates a registration.
        public init(
            executable: String, sha256: String?, applicationIdentifier: String, keychainAccessGroups: [String],
            applicationGroups: [String] = [], keychainAdministrator: Bool = false, sharesSecretService: Bool = true
        ) {
            self.applicationGroups = applicationGroups
            self.sharesSecretService = sharesSecretService
            self.keychainAdministrator = keychainAdministrator
            self.executable = executable
            self.sha256 = sha256
            self.applicationIdentifier = applicationIdentifier
            self.keychainAccessGroups = keychainAccessGroups
        }

        /// Every access group the app holds: its `keychain-access-groups` and its application identifier.
        public var accessGroups: [String] {
            Entitlements(
                applicationIdentifier: applicationIdentifier, keychainAccessGroups: keychainAccessGroups,
                applicationGroups: applicationGroups
            ).accessGroups
        }
    }

    /// Every access group some registered app holds: a removed app's items in these groups are never purged.
    public var heldAccessGroups: Set<String> { Set(apps.values.flatMap(\.accessGroups)) }

    /// The registered apps, by executable path.
    public var apps: [String: App]
    /// The file each registration was read from, by executable path (empty for a registry built in memory).
    public var files: [String: String] = [:]

    /// A registry holding `apps`.
    public init(apps: [App]) {
        var byPath: [String: App] = [:]
        for app in apps { byPath[app.executable] = app }
        self.apps = byPath
    }

    /// Reads every `*.json` file of `folder`; a missing folder is an empty registry. A file that is not a valid
    /// registration is skipped and reported in `problems`.
    ///
    /// - Parameter owner: when given (system mode: root), the folder and each file must belong to that user and be
    ///   writable by nobody else, or they are not trusted: a registration grants access groups.
    public static func load(folder: String, owner: UInt32? = nil) -> (registry: AppRegistry, problems: [String]) {
        var problems: [String] = []
        if let owner, let problem = untrusted(folder, owner: owner) {
            return (AppRegistry(apps: []), [problem])
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var apps: [App] = []
        var files: [String: String] = [:]
        for name in names.sorted() where name.hasSuffix(".json") {
            let path = folder + "/" + name
            if let problem = owner.flatMap({ untrusted(path, owner: $0) }) ?? notARegularFile(path) {
                problems.append(problem)
                continue
            }
            guard let contents = FileManager.default.contents(atPath: path),
                let app = try? JSONDecoder().decode(App.self, from: contents), app.executable.hasPrefix("/")
            else {
                problems.append("\(path) is not an app registration")
                continue
            }
            apps.append(app)
            files[app.executable] = path
        }
        var registry = AppRegistry(apps: apps)
        registry.files = files
        return (registry, problems)
    }

    /// Why `path` is not read as a registration: anything but a regular file (a FIFO would block the reader).
    static func notARegularFile(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "\(path) cannot be read" }
        return info.st_mode & S_IFMT == S_IFREG ? nil : "\(path) is not a regular file"
    }

    /// Why `path` may not be trusted as part of a registry that `owner` keeps: another owner, a link, or writable by
    /// its group or others; `nil` when it may.
    static func untrusted(_ path: String, owner: UInt32) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT == S_IFLNK { return "\(path) is a symbolic link" }
        if info.st_uid != owner { return "\(path) does not belong to user \(owner)" }
        if info.st_mode & 0o022 != 0 { return "\(path) is writable by others than its owner" }
        return nil
    }

    /// The entitlements of the running executable the kernel names `path`, when the registered file at that path is
    /// the very file running (`isRunningFile`: same device and inode, checked in the daemon's own view of the
    /// file system, so a file mounted over the path in another mount namespace does not pass) and, when the
    /// registration is pinned, its contents hash to `sha256` (`contentsDigest`, called only then, at most once).
    public func entitlements(
        executable path: String, isRunningFile: (String) -> Bool = { _ in true }, contentsDigest: () -> String?
    ) -> Entitlements {
        if let app = apps[path], isRunningFile(app.executable),
            app.sha256 == nil || app.sha256?.lowercased() == contentsDigest()
        {
            var entitlements = Entitlements(
                applicationIdentifier: app.applicationIdentifier, keychainAccessGroups: app.keychainAccessGroups,
                applicationGroups: app.applicationGroups)
            entitlements.isAdministrator = app.keychainAdministrator
            entitlements.sharesSecretService = app.sharesSecretService
            return entitlements
        }
        return Self.unregistered(executable: path)
    }

    /// The identity of an executable no registration covers: its path is its application identifier and its only
    /// group, so it reaches its own items and nobody else's.
    public static func unregistered(executable path: String) -> Entitlements {
        var entitlements = Entitlements(applicationIdentifier: "exe:" + path, keychainAccessGroups: [])
        entitlements.isAdministrator = false
        return entitlements
    }
}
