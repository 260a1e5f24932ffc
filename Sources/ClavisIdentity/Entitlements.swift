public import ClavisCore
public import FoundationEssentials

/// A caller's keychain entitlements: its application identifier and the access groups it may use.
///
/// The embedded keychain reads them from the file the configuration names (an Xcode `.entitlements` property
/// list, or JSON with the same keys); without one, the executable's name is both the application identifier and
/// the only group. The daemon will resolve them from the peer through its app registry, with the same type.
public struct Entitlements: Sendable, Hashable {
    /// `application-identifier`.
    public var applicationIdentifier: String
    /// `keychain-access-groups` followed by the application identifier, without repeats; never empty.
    public var accessGroups: [String]
    /// True for a program allowed to set, change or remove the keychain passcode (system mode: a registration
    /// with `"keychain-administrator": true`, such as the `clavis` command line); any caller of an embedded or
    /// user-mode keychain is its user.
    public var isAdministrator = true
    /// True when, through the Secret Service, the caller shares the group of every Secret Service client
    /// (`SecretServiceSharing`); a registered app opts out with `"clavis.secret-service.shared": false`.
    public var sharesSecretService = true
    /// True when the entitlements file says `"keychain-administrator": true`, which `clavis app register` records (a
    /// caller's own file never makes it an administrator of a daemon's keychain).
    public var declaresAdministrator = false

    /// The group an item goes to when the caller names none: the first one.
    public var defaultGroup: String { accessGroups[0] }

    /// `com.apple.security.application-groups`: app groups, which count as keychain access groups after the
    /// others, as on Apple platforms.
    public private(set) var applicationGroups: [String] = []

    /// Creates entitlements: the groups are `keychainAccessGroups`, then the application identifier, then
    /// `applicationGroups` (Apple's order), each once.
    public init(applicationIdentifier: String, keychainAccessGroups: [String], applicationGroups: [String] = []) {
        self.applicationIdentifier = applicationIdentifier
        self.applicationGroups = applicationGroups
        var groups: [String] = []
        for group in keychainAccessGroups + [applicationIdentifier] + applicationGroups where !groups.contains(group) {
            groups.append(group)
        }
        accessGroups = groups
    }

    /// Groups the caller may name although they are not its own, and which a search naming no group does not cover:
    /// the group Secret Service clients share (`SecretServiceItem.sharedAccessGroup`), unless the caller opted out.
    /// Any program of the user reads that group through the Secret Service anyway; naming it lets the caller reach
    /// those items through the keychain API too (`clavis import-secret-service`, `-G`), without them showing up in
    /// its other searches.
    public var namedOnlyGroups: [String] { sharesSecretService ? [SecretServiceItem.sharedAccessGroup] : [] }

    /// Checks that the caller holds `group`, or may name it (`namedOnlyGroups`).
    ///
    /// - Throws: `missingEntitlement` (-34018) when it does not.
    public func require(_ group: String) throws(KeychainError) {
        guard accessGroups.contains(group) || namedOnlyGroups.contains(group) else {
            throw KeychainError(.missingEntitlement, "access group '\(group)' is not in the caller's entitlements")
        }
    }

    /// The groups a query may search: all the caller's when `requested` is `nil`, else the requested ones, each of
    /// which the caller must hold.
    public func searchGroups(_ requested: [String]?) throws(KeychainError) -> [String] {
        guard let requested else { return accessGroups }
        for group in requested { try require(group) }
        return requested
    }

    /// Reads the file at `path`, or derives the default entitlements for `executableName` when `path` is `nil`.
    ///
    /// - Throws: `missingEntitlement` when the file cannot be read or is not an entitlements dictionary.
    public static func load(path: String?, executableName: String = ExecutableName.current)
        throws(KeychainError) -> Entitlements
    {
        guard let path else {
            return Entitlements(applicationIdentifier: executableName, keychainAccessGroups: [])
        }
        let contents: Data
        do {
            contents = try Data(contentsOf: URL(filePath: path))
        } catch {
            throw KeychainError(.missingEntitlement, "cannot read the entitlements file \(path)")
        }
        return try parse(contents, source: path, executableName: executableName)
    }

    /// Parses a property list or JSON object with `application-identifier` (or
    /// `com.apple.application-identifier`), `keychain-access-groups`, `com.apple.security.application-groups`,
    /// `keychain-administrator` and `clavis.secret-service.shared`; other keys are ignored.
    public static func parse(_ contents: Data, source: String, executableName: String = ExecutableName.current)
        throws(KeychainError) -> Entitlements
    {
        let file: EntitlementsFile
        do {
            if contents.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
                file = try JSONDecoder().decode(EntitlementsFile.self, from: contents)
            } else {
                file = try PropertyListDecoder().decode(EntitlementsFile.self, from: contents)
            }
        } catch {
            throw KeychainError(
                .missingEntitlement, "the entitlements file \(source) is not a dictionary of the expected types")
        }
        let groups = file.keychainAccessGroups ?? []
        let identifier = file.applicationIdentifier ?? file.appleApplicationIdentifier ?? groups.first ?? executableName
        var entitlements = Entitlements(
            applicationIdentifier: identifier, keychainAccessGroups: groups,
            applicationGroups: file.applicationGroups ?? [])
        entitlements.sharesSecretService = file.sharesSecretService ?? true
        entitlements.declaresAdministrator = file.keychainAdministrator ?? false
        return entitlements
    }
}

/// The keys of an entitlements file that matter to the keychain.
private struct EntitlementsFile: Decodable {
    var applicationIdentifier: String?
    var appleApplicationIdentifier: String?
    var keychainAccessGroups: [String]?
    var keychainAdministrator: Bool?
    var sharesSecretService: Bool?
    var applicationGroups: [String]?

    enum CodingKeys: String, CodingKey {
        case applicationIdentifier = "application-identifier"
        case appleApplicationIdentifier = "com.apple.application-identifier"
        case keychainAccessGroups = "keychain-access-groups"
        case keychainAdministrator = "keychain-administrator"
        case sharesSecretService = "clavis.secret-service.shared"
        case applicationGroups = "com.apple.security.application-groups"
    }
}
