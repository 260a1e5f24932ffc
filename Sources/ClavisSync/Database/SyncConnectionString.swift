/// What Clavis accepts of a libpq connection string naming the sync server: never one with a password, which would
/// sit on command lines, in the keychain's sync record, in `clavis sync status` and in libpq's error texts (a
/// password belongs in `~/.pgpass`, `PGPASSWORD` or a client certificate).
public enum SyncConnectionString {
    /// True for a connection string with a password in it: a `password` keyword, or a URI's `user:password@`.
    public static func carriesPassword(_ connection: String) -> Bool {
        if connection.contains("password") { return true }
        guard let scheme = connection.firstRange(of: "://") else { return false }
        let authority = connection[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return false }
        return authority[..<at].contains(":")
    }
}
