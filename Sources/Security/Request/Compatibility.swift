import ClavisCore

/// Which Apple platform's validation Clavis follows where iOS and macOS differ, chosen by `CLAVIS_COMPAT`.
///
/// The one difference, documented here and in the README:
///
/// | query | macOS (default) | iOS (`CLAVIS_COMPAT=ios`) |
/// |---|---|---|
/// | `kSecMatchLimit` in `SecItemUpdate`, `SecItemDelete` or `SecItemAdd` | accepted and ignored | `errSecParam` |
/// | `kSecReturn*` in `SecItemUpdate` or `SecItemDelete` | accepted and ignored | `errSecParam` |
///
/// Update and delete act on every match under both. Everything else follows iOS's data-protection keychain.
enum Compatibility: Sendable, Equatable {
    /// macOS: accepts the extra keys most Linux callers (written for macOS) send.
    case macOS
    /// iOS: rejects them with `errSecParam`.
    case iOS

    /// The flavour named by `CLAVIS_COMPAT` (`ios` selects iOS; anything else, or nothing, macOS).
    static var current: Compatibility {
        Environment.value("CLAVIS_COMPAT")?.lowercased() == "ios" ? .iOS : .macOS
    }

    /// Checks that a query for `operation` carries no key this flavour refuses.
    func check(_ query: QueryDictionary, for operation: Operation) throws(KeychainError) {
        guard self == .iOS, operation != .copyMatching else { return }
        if query.contains(kSecMatchLimit) {
            throw KeychainError(.param, "kSecMatchLimit is not allowed in \(operation) (CLAVIS_COMPAT=ios)")
        }
        if operation != .add, let key = ReturnKinds.keys.first(where: { query.contains($0.0 as NSString) }) {
            throw KeychainError(.param, "\(key.0) is not allowed in \(operation) (CLAVIS_COMPAT=ios)")
        }
    }
}

/// The four keychain calls.
enum Operation: String, Sendable, CustomStringConvertible {
    case add = "SecItemAdd"
    case copyMatching = "SecItemCopyMatching"
    case update = "SecItemUpdate"
    case delete = "SecItemDelete"

    var description: String { rawValue }
}

/// Reads the process environment.
enum Environment {
    /// The value of `name`, or `nil` when unset or empty.
    static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }
}
