import ClavisCore

/// Access controls and protection classes as `clavis` shows and reads them.
///
/// `--access-control` takes flag names joined by commas, such as `userPresence`, `biometryAny`,
/// `biometryCurrentSet`, `devicePasscode`, `watch`, and the conjunctions `or` and `and`
/// (`biometryAny,or,devicePasscode`). `--accessible` takes a protection class code (`ak`, `ck`, `dk`, `aku`, `cku`,
/// `dku`, `akpu`) or its Apple name without the prefix (`WhenUnlockedThisDeviceOnly`).
enum AccessControlText {
    /// The flag names, in the order shown.
    static let flagNames: [(String, AccessControl.Flags)] = [
        ("userPresence", .userPresence), ("biometryAny", .biometryAny), ("biometryCurrentSet", .biometryCurrentSet),
        ("devicePasscode", .devicePasscode), ("watch", .watch), ("or", .or), ("and", .and),
        ("privateKeyUsage", .privateKeyUsage), ("applicationPassword", .applicationPassword),
    ]

    /// The flags named by `text`, or `nil` for an unknown name.
    static func flags(_ text: String) -> AccessControl.Flags? {
        var flags: AccessControl.Flags = []
        for name in text.split(separator: ",") {
            let trimmed = name.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
            guard let flag = flagNames.first(where: { $0.0.lowercased() == String(trimmed).lowercased() })?.1 else {
                return nil
            }
            flags.insert(flag)
        }
        return flags.isEmpty ? nil : flags
    }

    /// The protection code for a code or Apple name, or `nil`.
    static func protectionCode(_ text: String) -> String? {
        let wanted = text.hasPrefix("kSecAttrAccessible") ? String(text.dropFirst(18)) : text
        return ProtectionClass.allCases.first { $0.rawValue == wanted || $0.name.lowercased() == wanted.lowercased() }?
            .rawValue
    }

    /// "WhenUnlockedThisDeviceOnly (aku)".
    static func protection(_ code: String) -> String {
        guard let protection = ProtectionClass(rawValue: code) else { return code }
        return "\(protection.name) (\(code))"
    }

    /// The flag names of an access control as `--access-control` takes them: the conditions with the conjunction
    /// between each two, such as `["biometryAny", "or", "devicePasscode"]`.
    static func names(_ flags: AccessControl.Flags) -> [String] {
        let present = flagNames.filter { flags.contains($0.1) }.map(\.0)
        let conjunction = present.first { $0 == "or" || $0 == "and" }
        var names: [String] = []
        for name in present where name != "or" && name != "and" {
            if let conjunction, !names.isEmpty { names.append(conjunction) }
            names.append(name)
        }
        return names
    }
}
