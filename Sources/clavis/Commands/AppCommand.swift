import ClavisClient
import ClavisCore
import ClavisIdentity

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `app register|list|remove`: the app registry clavisd identifies its callers by (root's `/etc/clavis/apps.d` for
/// root, the user's `$XDG_CONFIG_HOME/clavis/apps.d` otherwise, or `--registry DIR`).
struct AppCommand: RunnableCommand {
    enum Action {
        case register(executable: String, entitlements: String, pin: Bool, administrator: Bool)
        case list
        case remove(String, deletingItems: Bool)
    }

    var action: Action
    var registry: RegistryFolder

    static let descriptor = CommandDescriptor(
        name: "app",
        summary: "Register an executable with its entitlements for clavisd, list the registered apps, or remove one.",
        options: [
            OptionSpec(flag: "--executable", valueName: "path", help: "register: the executable (an absolute path)"),
            OptionSpec(
                flag: "--entitlements", valueName: "file",
                help: "register: an Xcode .entitlements property list (or JSON) with its groups"),
            OptionSpec(flag: "--pin", help: "register: only this build, by its SHA-256 (a changed binary loses it)"),
            OptionSpec(
                flag: "--administrator", help: "register: the program may set, change or remove the keychain passcode"),
            OptionSpec(
                flag: "--delete-items",
                help: "remove: also delete the app's items in groups no other registered app holds (else they stay)"),
            OptionSpec(flag: "--registry", valueName: "folder", help: "the registry folder to use"),
        ],
        operands: "register | list | remove APP", usesItems: false
    ) { (parsed) throws(UsageError) in
        let configuration = ClavisConfiguration.current
        let registry =
            parsed.value("--registry").map(RegistryFolder.init(path:))
            ?? RegistryFolder.standard(
                isRoot: getuid() == 0, configHome: configuration.configHome, home: configuration.userHome)
        switch parsed.operands.first {
        case "register":
            guard let executable = parsed.value("--executable"), executable.hasPrefix("/") else {
                throw UsageError(message: "app register needs --executable with an absolute path")
            }
            guard let entitlements = parsed.value("--entitlements") else {
                throw UsageError(message: "app register needs --entitlements FILE")
            }
            return AppCommand(
                action: .register(
                    executable: executable, entitlements: entitlements, pin: parsed.has("--pin"),
                    administrator: parsed.has("--administrator")),
                registry: registry)
        case "list":
            return AppCommand(action: .list, registry: registry)
        case "remove":
            guard parsed.operands.count == 2 else {
                throw UsageError(message: "app remove needs the application identifier (or executable) to remove")
            }
            return AppCommand(
                action: .remove(parsed.operands[1], deletingItems: parsed.has("--delete-items")), registry: registry)
        default:
            throw UsageError(message: "app needs register, list or remove")
        }
    }

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            switch action {
            case .register(let given, let entitlementsPath, let pin, let administrator):
                try register(given, entitlementsPath: entitlementsPath, pinning: pin, administrator: administrator)
            case .list:
                list(json: context.json)
            case .remove(let name, let deletingItems):
                try remove(name, deletingItems: deletingItems)
            }
            return ExitStatus.success
        } catch {
            return context.fail("clavis app", error)
        }
    }

    /// `app register`: the executable at `given` (its real path) gets the groups its entitlements name.
    private func register(_ given: String, entitlementsPath: String, pinning pin: Bool, administrator: Bool)
        throws(KeychainError)
    {
        // The daemon matches the path the kernel reports for a running program: the real one, no links.
        guard let resolved = realpath(given, nil) else {
            throw KeychainError(.param, "\(given) does not exist")
        }
        let executable = String(cString: resolved)
        free(resolved)
        var status = stat()
        guard stat(executable, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(executable, X_OK) == 0
        else {
            throw KeychainError(.param, "\(executable) is not an executable file")
        }
        let entitlements = try Entitlements.load(path: entitlementsPath)
        // A registration grants groups to whatever file is at the path: one that a user the registry does not
        // trust could change or replace must be pinned to its contents.
        if !pin, let reason = FileReplacement.reason(executable, trusted: [0, getuid()]) {
            throw KeychainError(
                .param,
                "\(executable) could be replaced by another user (\(reason)): register it with --pin, or move it"
                    + " where only root can write")
        }
        var digest: String?
        if pin {
            guard let sha256 = ExecutableDigest.sha256(of: executable) else {
                throw KeychainError(.io, "cannot read \(executable) to pin it")
            }
            digest = sha256
        }
        let groups = entitlements.accessGroups.filter {
            $0 != entitlements.applicationIdentifier && !entitlements.applicationGroups.contains($0)
        }
        let administers = administrator || entitlements.declaresAdministrator
        try registry.register(
            AppRegistry.App(
                executable: executable, sha256: digest,
                applicationIdentifier: entitlements.applicationIdentifier, keychainAccessGroups: groups,
                applicationGroups: entitlements.applicationGroups, keychainAdministrator: administers,
                sharesSecretService: entitlements.sharesSecretService))
        Console.out(
            "registered \(entitlements.applicationIdentifier) for \(executable) in \(registry.path)"
                + (administers ? " as a keychain administrator" : ""))
    }

    /// `app list`: each registered app, as text or JSON.
    private func list(json: Bool) {
        let (loaded, problems) = AppRegistry.load(folder: registry.path)
        for problem in problems { Console.error("clavis: app: \(problem)") }
        let apps = loaded.apps.values.sorted { $0.applicationIdentifier < $1.applicationIdentifier }
        guard !json else {
            Console.out(ItemFormatter.jsonText(.array(apps.map(Self.jsonObject))))
            return
        }
        for app in apps {
            let groups = ([app.applicationIdentifier] + app.keychainAccessGroups + app.applicationGroups)
                .joined(separator: ", ")
            Console.out(
                "\(app.applicationIdentifier)  \(app.executable)\(app.sha256 == nil ? "" : "  (pinned)")"
                    + (app.keychainAdministrator ? "  (administrator)" : "")
                    + (app.sharesSecretService ? "" : "  (not shared with Secret Service clients)")
                    + "  groups: \(groups)")
        }
    }

    /// An app as `app list --json` shows it, with the entitlements' own key names.
    private static func jsonObject(_ app: AppRegistry.App) -> JSONValue {
        var object: [String: JSONValue] = [
            "executable": .string(app.executable),
            "application-identifier": .string(app.applicationIdentifier),
            "keychain-access-groups": .array(app.keychainAccessGroups.map { .string($0) }),
            "com.apple.security.application-groups": .array(app.applicationGroups.map { .string($0) }),
        ]
        if let sha256 = app.sha256 { object["sha256"] = .string(sha256) }
        if app.keychainAdministrator { object["keychain-administrator"] = .bool(true) }
        object["clavis.secret-service.shared"] = .bool(app.sharesSecretService)
        return .object(object)
    }

    /// `app remove`: the registration goes; with `--delete-items`, so do the items of the groups no other app holds.
    private func remove(_ name: String, deletingItems: Bool) throws(KeychainError) {
        guard let (_, unshared) = try registry.removeRegistration(of: name) else {
            throw KeychainError(.itemNotFound, "no app \(name) is registered in \(registry.path)")
        }
        Console.out("removed \(name) from \(registry.path)")
        if deletingItems {
            let purge = try KeychainClient().purgeAccessGroups(unshared)
            Console.out("deleted \(purge.deleted) items of \(name)")
        } else {
            Console.out("its items stay, and come back when \(name) is registered again")
        }
    }
}
