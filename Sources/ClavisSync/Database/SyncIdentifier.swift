public import ClavisCore

/// SQL identifiers Clavis puts into statements where a parameter cannot go (a role, a channel): only plain ones.
public enum SyncIdentifier {
    /// `name` double-quoted, once checked to be a plain identifier: a lowercase letter or `_`, then lowercase
    /// letters, digits, `_` or `.`, 63 bytes at most (PostgreSQL's limit).
    ///
    /// - Throws: `param` for any other name, which could not be told apart from SQL.
    public static func quoted(_ name: String) throws(KeychainError) -> String {
        try check(name)
        return "\"\(name)\""
    }

    /// Checks `name` as `quoted` does.
    public static func check(_ name: String) throws(KeychainError) {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, first == UInt8(ascii: "_") || isLowercase(first),
            bytes.allSatisfy({ isLowercase($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
        else {
            throw KeychainError(
                .param,
                "'\(name)' is not a plain name: lowercase letters, digits, _ and ., at most 63, not a digit first")
        }
    }

    private static func isLowercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
