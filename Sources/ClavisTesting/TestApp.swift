/// An app as the keychain knows it: its `application-identifier` and `keychain-access-groups`, as its
/// `.entitlements` file would name them.
public struct TestApp: Sendable, Hashable {
    /// The `application-identifier` (also the app's last access group).
    public var applicationIdentifier: String
    /// The `keychain-access-groups`, in order: the first is where items go when a query names none.
    public var accessGroups: [String]

    /// An app with `applicationIdentifier` holding `accessGroups` (and its identifier's own group).
    public init(applicationIdentifier: String, accessGroups: [String] = []) {
        self.applicationIdentifier = applicationIdentifier
        self.accessGroups = accessGroups
    }

    /// Every group the app holds: its `keychain-access-groups`, then its application identifier.
    public var allAccessGroups: [String] {
        var groups: [String] = []
        for group in accessGroups + [applicationIdentifier] where !groups.contains(group) { groups.append(group) }
        return groups
    }

    /// The app's entitlements as the JSON form of an `.entitlements` file.
    var entitlementsJSON: String { json(executable: nil) }

    /// The app's registration with clavisd for `executable`, or its entitlements without one.
    func json(executable: String?) -> String {
        func quoted(_ text: String) -> String {
            var escaped = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case _ where scalar.value < 0x20: escaped += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped + "\""
        }
        let groups = accessGroups.map(quoted).joined(separator: ", ")
        let path = executable.map { #""executable": \#(quoted($0)), "# } ?? ""
        return
            #"{\#(path)"application-identifier": \#(quoted(applicationIdentifier)), "keychain-access-groups": [\#(groups)]}"#
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
