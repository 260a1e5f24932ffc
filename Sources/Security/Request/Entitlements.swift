import ClavisCore
import Synchronization

/// A process's keychain entitlements: its application identifier and the access groups it may use.
///
/// In the embedded mode they come from the file named by `CLAVIS_ENTITLEMENTS` (an Xcode `.entitlements`
/// property list, or JSON with the same keys); without one, the process's executable name is both its
/// application identifier and its only group.
struct Entitlements: Sendable, Equatable {
    /// `application-identifier`.
    var applicationIdentifier: String
    /// `keychain-access-groups` followed by the application identifier, without repeats; never empty.
    var accessGroups: [String]

    /// The group an item goes to when the caller names none: the first one.
    var defaultGroup: String { accessGroups[0] }

    /// Creates entitlements; the application identifier is appended to the groups when missing.
    init(applicationIdentifier: String, keychainAccessGroups: [String]) {
        self.applicationIdentifier = applicationIdentifier
        var groups: [String] = []
        for group in keychainAccessGroups + [applicationIdentifier] where !groups.contains(group) {
            groups.append(group)
        }
        accessGroups = groups
    }

    /// Checks that the caller holds `group`.
    ///
    /// - Throws: `missingEntitlement` (-34018) when it does not.
    func require(_ group: String) throws(KeychainError) {
        guard accessGroups.contains(group) else {
            throw KeychainError(.missingEntitlement, "access group '\(group)' is not in this process's entitlements")
        }
    }

    /// The groups a query may search: all the caller's, or the one it names (which it must hold).
    func searchGroups(named group: String?) throws(KeychainError) -> [String] {
        guard let group else { return accessGroups }
        try require(group)
        return [group]
    }

    /// The entitlements of this process, read once per value of `CLAVIS_ENTITLEMENTS`.
    static func current() throws(KeychainError) -> Entitlements {
        let path = Environment.value("CLAVIS_ENTITLEMENTS")
        return try cache.withLock { cache throws(KeychainError) in
            if let known = cache[path] { return try known.get() }
            let loaded = Result { () throws(KeychainError) in try load(path: path) }
            cache[path] = loaded
            return try loaded.get()
        }
    }

    private static let cache = Mutex<[String?: Result<Entitlements, KeychainError>]>([:])

    /// Reads the file at `path`, or derives the default entitlements when `path` is `nil`.
    static func load(path: String?) throws(KeychainError) -> Entitlements {
        guard let path else {
            let name = executableName
            return Entitlements(applicationIdentifier: name, keychainAccessGroups: [])
        }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw KeychainError(.missingEntitlement, "cannot read the entitlements file \(path)")
        }
        return try parse(contents, source: path)
    }

    /// Parses a property list or JSON object with `application-identifier` and `keychain-access-groups`.
    static func parse(_ contents: Data, source: String) throws(KeychainError) -> Entitlements {
        let object: Any?
        if contents.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
            object = try? JSONSerialization.jsonObject(with: contents)
        } else {
            object = try? PropertyListSerialization.propertyList(from: contents, options: [], format: nil)
        }
        guard let dictionary = object as? [String: Any] else {
            throw KeychainError(.missingEntitlement, "the entitlements file \(source) is not a dictionary")
        }
        let identifier =
            dictionary["application-identifier"] ?? dictionary["com.apple.application-identifier"]
        let groups = dictionary["keychain-access-groups"]
        guard identifier == nil || identifier is String, groups == nil || groups is [String] else {
            throw KeychainError(.missingEntitlement, "the entitlements file \(source) has values of the wrong type")
        }
        let groupList = (groups as? [String]) ?? []
        let applicationIdentifier = (identifier as? String) ?? groupList.first ?? executableName
        return Entitlements(applicationIdentifier: applicationIdentifier, keychainAccessGroups: groupList)
    }

    /// The name of the running executable, the default application identifier and group.
    static var executableName: String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let name = (path as NSString).lastPathComponent
            if !name.isEmpty { return name }
        }
        return ProcessInfo.processInfo.processName
    }
}

/// The access group an item added by this process without `kSecAttrAccessGroup` goes to (its first entitled group),
/// or "" when the entitlements cannot be read (every call then fails with `errSecMissingEntitlement` anyway).
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisDefaultAccessGroup() -> String {
    (try? Entitlements.current().defaultGroup) ?? ""
}
