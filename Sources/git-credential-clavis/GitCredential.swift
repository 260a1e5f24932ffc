import ClavisCore

/// One credential as git describes it to a helper: `key=value` lines on standard input, up to a blank line or the
/// end of input (gitcredentials(7), "Custom helpers"). The password and refresh token stay in zeroing memory.
struct GitCredential {
    /// `protocol`: the URL scheme, such as `https`.
    var scheme: String?
    /// `host`, without a port.
    var host: String?
    /// The port given in `host` (`example.com:8443`).
    var port: Int64?
    /// `path`, when git sends it (`credential.useHttpPath`).
    var path: String?
    /// `username`.
    var username: String?
    /// `password`.
    var password: SecureBytes?
    /// `password_expiry_utc`: seconds since 1970 after which the password is no longer valid.
    var passwordExpiry: Int64?
    /// `oauth_refresh_token`.
    var refreshToken: SecureBytes?
    /// The `capability[]` lines: what the caller understands (`state`, `authtype`).
    var capabilities: Set<String> = []
    /// The `state[]` lines: what helpers noted about this credential in an earlier `get`.
    var states: [String] = []

    /// The largest description read, far beyond any real one.
    static let inputLimit = 65_536

    /// A line that is not `key=value`, or a value that cannot be used.
    struct InputError: Error {
        var message: String
    }

    /// Reads the description from `input`; lines of keys this helper does not know are skipped, as git asks.
    ///
    /// - Throws: `InputError` for a line without `=`, a port that is not a number, or text that is not UTF-8.
    init(_ input: SecureBytes) throws(InputError) {
        let failure = input.withUnsafeBytes { bytes -> InputError? in
            for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                if line.isEmpty { break }
                do throws(InputError) {
                    try read(UnsafeRawBufferPointer(rebasing: line))
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Reads one `key=value` line.
    private mutating func read(_ line: UnsafeRawBufferPointer) throws(InputError) {
        guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
            throw InputError(message: "bad input: a line without '='")
        }
        let key = String(decoding: line[..<equals], as: UTF8.self)
        let value = UnsafeRawBufferPointer(rebasing: line[(equals + 1)...])
        switch key {
        case "password": password = SecureBytes(copying: value)
        case "oauth_refresh_token": refreshToken = SecureBytes(copying: value)
        case "protocol": scheme = try text(value, key)
        case "host":
            let host = try text(value, key)
            if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
                guard let number = Int64(host[host.index(after: colon)...]), (0...65_535).contains(number) else {
                    throw InputError(message: "bad input: the port in host is not a number")
                }
                self.host = String(host[..<colon])
                port = number
            } else {
                self.host = host
            }
        case "path": path = try text(value, key)
        case "username": username = try text(value, key)
        case "password_expiry_utc":
            guard let seconds = Int64(try text(value, key)) else {
                throw InputError(message: "bad input: password_expiry_utc is not a number of seconds")
            }
            passwordExpiry = seconds
        case "capability[]": capabilities.insert(try text(value, key))
        case "state[]": states.append(try text(value, key))
        default: break
        }
    }

    private func text(_ value: UnsafeRawBufferPointer, _ key: String) throws(InputError) -> String {
        guard let text = String(validating: value, as: UTF8.self) else {
            throw InputError(message: "bad input: \(key) is not UTF-8")
        }
        return text
    }
}
