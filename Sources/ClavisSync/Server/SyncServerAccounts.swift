public import ClavisCore

/// The accounts of a sync server: PostgreSQL login roles that are members of `clavis_sync_account`, each reaching only
/// its own rows. How an account logs in (a password in its `~/.pgpass`, a client certificate, peer authentication)
/// is PostgreSQL's, set by the server's operator in `pg_hba.conf`; Clavis never handles the database password.
public enum SyncServerAccounts {
    /// Creates the account `name` (a login role in `clavis_sync_account`), or makes an existing role one.
    ///
    /// - Throws: `param` for a name that is not a plain identifier or an existing role that row-level security does
    ///   not hold (a superuser, `BYPASSRLS`), `missingEntitlement` when the connected role may not create roles; what
    ///   `execute` throws.
    public static func add(_ name: String, on database: SyncDatabase) throws(KeychainError) {
        let role = try SyncIdentifier.quoted(name)
        try database.transaction { () throws(KeychainError) in
            let exists = try database.execute(
                "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = $1", [.text(name)])
            // Row-level security does not hold a superuser or a role that bypasses it: such an account would see
            // every account's rows.
            if exists.first?[0].bool == true {
                throw KeychainError(
                    .param, "\(name) is a superuser or bypasses row-level security, so it cannot be a sync account")
            }
            if exists.isEmpty { try database.execute("CREATE ROLE \(role) LOGIN") }
            try database.execute("GRANT clavis_sync_account TO \(role)")
        }
    }

    /// The accounts, by name.
    public static func list(on database: SyncDatabase) throws(KeychainError) -> [String] {
        try database.execute(
            """
            SELECT member.rolname::text FROM pg_auth_members
            JOIN pg_roles AS member ON member.oid = pg_auth_members.member
            JOIN pg_roles AS account ON account.oid = pg_auth_members.roleid
            WHERE account.rolname = 'clavis_sync_account' ORDER BY 1
            """
        ).compactMap { $0[0].text }
    }
}
