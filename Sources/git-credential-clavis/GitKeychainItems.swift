import ClavisClient
import ClavisCore

/// Git's credentials as internet-password items, laid out as git's own macOS helper (`git-credential-osxkeychain`)
/// lays them out, so that the same keychain code finds them on both systems:
///
/// | git | attribute |
/// |---|---|
/// | `protocol` | `kSecAttrProtocol` (Apple's code: `htps`, `http`, `ftp `, `ftps`, `imap`, `imps`, `smtp`) |
/// | `host` | `kSecAttrServer`, and `kSecAttrPort` for a `host:port` |
/// | `path` | `kSecAttrPath` |
/// | `username` | `kSecAttrAccount` |
/// | (always) | `kSecAttrAuthenticationType` `dflt` |
///
/// The secret is the password, then `\npassword_expiry_utc=SECONDS` and `\noauth_refresh_token=TOKEN` when git gave
/// them. Other protocols are not stored (git then asks its other helpers or the user), as on macOS.
struct GitKeychainItems {
    let keychain: KeychainClient
    /// The time now, in seconds since 1970: expired passwords are not returned.
    let now: Int64

    /// What `state[]` carries for a credential this helper answered: git hands it back to `store`, which then does
    /// not write the same credential again.
    static let seenState = "clavis:seen=1"

    /// The internet-password attributes for git's URL schemes (Apple's `kSecAttrProtocol` codes).
    static let protocolCodes = [
        "https": "htps", "http": "http", "ftp": "ftp ", "ftps": "ftps", "imap": "imap", "imaps": "imps", "smtp": "smtp",
    ]

    /// `get`: the stored credential for what git describes, as the lines git reads back; nothing when none is
    /// stored, or its password has expired.
    func get(_ credential: GitCredential) throws(KeychainError) -> SecureBytes? {
        guard let attributes = Self.attributes(of: credential) else { return nil }
        let query = ItemQuery(
            itemClass: .internetPassword, attributes: attributes, synchronizable: .any, limit: .one,
            returnsSecret: true)
        guard let item = try keychain.find(query).first, let secret = item.secret else { return nil }
        let stored = StoredSecret(secret)
        if let expiry = stored.expiry, expiry <= now { return nil }
        var answer = SecureBytes([])
        if credential.username == nil, let account = item.attributes[.account]?.stringValue {
            answer = answer.appending(SecureBytes(Array("username=\(account)\n".utf8)))
        }
        answer = answer.appending(SecureBytes(Array("password=".utf8))).appending(stored.password)
            .appending(SecureBytes([UInt8(ascii: "\n")]))
        if let expiry = stored.expiry {
            answer = answer.appending(SecureBytes(Array("password_expiry_utc=\(expiry)\n".utf8)))
        }
        if let token = stored.refreshToken {
            answer = answer.appending(SecureBytes(Array("oauth_refresh_token=".utf8))).appending(token)
                .appending(SecureBytes([UInt8(ascii: "\n")]))
        }
        if credential.capabilities.contains("state") {
            answer = answer.appending(SecureBytes(Array("capability[]=state\nstate[]=\(Self.seenState)\n".utf8)))
        }
        return answer
    }

    /// `store`: keeps a complete credential (protocol, host, username and password), replacing the one stored for
    /// the same server, protocol, port, path and account; an expired one is not stored.
    func store(_ credential: GitCredential) throws(KeychainError) {
        guard !credential.states.contains(Self.seenState), let attributes = Self.attributes(of: credential),
            credential.username != nil, let password = credential.password
        else { return }
        if let expiry = credential.passwordExpiry, expiry <= now { return }
        let secret = StoredSecret.encode(
            password: password, expiry: credential.passwordExpiry, refreshToken: credential.refreshToken)
        do throws(KeychainError) {
            _ = try keychain.add(NewItem(itemClass: .internetPassword, attributes: attributes, secret: secret))
        } catch  where error.code == .duplicateItem {
            // Every attribute of the primary key is named, so that the update reaches only the item the add met.
            let query = ItemQuery(
                itemClass: .internetPassword,
                attributes: ItemClass.internetPassword.primaryKeyAttributes(of: attributes))
            _ = try keychain.update(query, with: ItemChanges(secret: secret))
        }
    }

    /// `erase`: deletes the stored credentials matching what git describes (a protocol and a host at least); with a
    /// password, only those storing that password.
    func erase(_ credential: GitCredential) throws(KeychainError) {
        guard credential.host != nil, let attributes = Self.attributes(of: credential) else { return }
        let query = ItemQuery(
            itemClass: .internetPassword, attributes: attributes, synchronizable: .any,
            returnsSecret: credential.password != nil)
        for item in try keychain.find(query) {
            if let password = credential.password {
                guard let secret = item.secret, StoredSecret(secret).password == password else { continue }
            }
            _ = try keychain.delete(
                ItemQuery(
                    itemClass: .internetPassword, synchronizable: .any,
                    persistentReference: item.persistentReference))
        }
    }

    /// The attributes git's description names; `nil` for a protocol not stored, or no protocol or host.
    static func attributes(of credential: GitCredential) -> [AttributeKey: AttributeValue]? {
        guard let scheme = credential.scheme, let code = protocolCodes[scheme.lowercased()], let host = credential.host
        else { return nil }
        var attributes: [AttributeKey: AttributeValue] = [
            .server: .string(host), .protocol: .string(code), .authenticationType: .string("dflt"),
        ]
        if let port = credential.port { attributes[.port] = .number(port) }
        if let path = credential.path { attributes[.path] = .string(path) }
        if let username = credential.username { attributes[.account] = .string(username) }
        return attributes
    }
}
