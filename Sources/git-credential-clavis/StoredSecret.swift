import ClavisCore

/// The secret of a git credential item: the password, then `\npassword_expiry_utc=SECONDS` and
/// `\noauth_refresh_token=TOKEN` lines when git gave them, as git's macOS helper writes it.
struct StoredSecret {
    /// The password: the secret's first line.
    var password: SecureBytes
    /// When the password stops being valid, in seconds since 1970.
    var expiry: Int64?
    /// The OAuth refresh token.
    var refreshToken: SecureBytes?

    /// Reads a stored secret; a secret of one line is the password alone.
    init(_ secret: SecureBytes) {
        var password = SecureBytes([])
        var expiry: Int64?
        var refreshToken: SecureBytes?
        secret.withUnsafeBytes { bytes in
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .map(UnsafeRawBufferPointer.init(rebasing:))
            password = SecureBytes(copying: lines[0])
            for line in lines.dropFirst() {
                if let value = Self.value(of: line, named: "password_expiry_utc=") {
                    expiry = Int64(String(decoding: value, as: UTF8.self))
                } else if let value = Self.value(of: line, named: "oauth_refresh_token=") {
                    refreshToken = SecureBytes(copying: value)
                }
            }
        }
        self.password = password
        self.expiry = expiry
        self.refreshToken = refreshToken
    }

    /// The bytes to store for a credential.
    static func encode(password: SecureBytes, expiry: Int64?, refreshToken: SecureBytes?) -> SecureBytes {
        var secret = password
        if let expiry { secret = secret.appending(SecureBytes(Array("\npassword_expiry_utc=\(expiry)".utf8))) }
        if let refreshToken {
            secret = secret.appending(SecureBytes(Array("\noauth_refresh_token=".utf8))).appending(refreshToken)
        }
        return secret
    }

    /// The rest of `line` after `name`, when it starts with it.
    private static func value(of line: UnsafeRawBufferPointer, named name: String) -> UnsafeRawBufferPointer? {
        let prefix = Array(name.utf8)
        guard line.count >= prefix.count, line.prefix(prefix.count).elementsEqual(prefix) else { return nil }
        return UnsafeRawBufferPointer(rebasing: line[prefix.count...])
    }
}
