internal import ClavisCore
internal import ClavisStore
internal import ClavisSync

/// The sync commands that change where a device stands with its account's circle (make it, join it, approve a
/// device, remove one, recover), each on a connection of its own, kept in the keychain once the server took it.
struct SyncCircleCommands {
    /// The keychain of the device.
    let keychain: Keychain

    /// Carries out `command` for the device `record` keeps (`nil`: in no circle); the recovery key of a circle
    /// `enable` made.
    func perform(_ command: SyncCommand, record: SyncDeviceRecord?) throws(KeychainError) -> SecureBytes? {
        let kept = KeychainSyncState(keychain: keychain)
        switch command {
        case .enable(let server, let name):
            if var record {
                guard record.paused else {
                    throw KeychainError(.duplicateItem, "this device syncs already (clavis sync status)")
                }
                record.paused = false
                try kept.save(record)
                return nil
            }
            let database = try Self.connect(server)
            let created: (SyncMembership, SyncRecoveryKey)
            do {
                created = try SyncMembership.createCircle(
                    device: try SyncDeviceKey.generate(), name: name, store: SyncCircleStore(database: database))
            } catch  where error.code == .duplicateItem {
                throw KeychainError(
                    .duplicateItem,
                    "the account has a sync circle already: join it (clavis sync join), then approve this device on"
                        + " one of its members (clavis sync approve CODE)")
            }
            try kept.save(SyncDeviceRecord(server: server, phase: .member(created.0, state: SyncState())))
            return SecureBytes(Array(created.1.text.utf8))
        case .join(let server, let name):
            try Self.requireNoCircle(record)
            let database = try Self.connect(server)
            let device = try SyncDeviceKey.generate()
            let request = try SyncMembership.requestJoin(
                device: device, name: name, store: SyncCircleStore(database: database))
            try kept.save(SyncDeviceRecord(server: server, phase: .joining(device: device, request: request)))
        case .recover(let server, let name, let recoveryKey):
            if case .member? = record?.phase { try Self.requireNoCircle(record) }
            let key = try recoveryKey.withTemporaryArray { (bytes) throws(KeychainError) in
                try SyncRecoveryKey(text: String(decoding: bytes, as: UTF8.self))
            }
            let database = try Self.connect(server)
            let membership = try SyncMembership.recover(
                device: try SyncDeviceKey.generate(), name: name, recovery: key,
                store: SyncCircleStore(database: database))
            try kept.save(SyncDeviceRecord(server: server, phase: .member(membership, state: SyncState())))
        case .approve(let code):
            try changeCircle(record) { (membership, store) throws(KeychainError) in
                try membership.approve(code: code, store: store)
            }
        case .remove(let name):
            try changeCircle(record) { (membership, store) throws(KeychainError) in
                try membership.remove(try Self.member(named: name, in: membership).identifier, store: store)
            }
        case .status, .now, .disable:
            break
        }
        return nil
    }

    /// Changes the circle as a member (`change`, after following the circle's latest version) and keeps the
    /// membership that results.
    private func changeCircle(
        _ record: SyncDeviceRecord?, _ change: (inout SyncMembership, SyncCircleStore) throws(KeychainError) -> Void
    ) throws(KeychainError) {
        guard var record, case .member(var membership, let state) = record.phase else {
            throw KeychainError(.notAvailable, "this device is not a member of a sync circle (clavis sync status)")
        }
        let store = SyncCircleStore(database: try Self.connect(record.server))
        try membership.refresh(store: store)
        try change(&membership, store)
        record.phase = .member(membership, state: state)
        try KeychainSyncState(keychain: keychain).save(record)
    }

    /// The member `name` names: its name, or the start of its identifier in hex (four digits at least).
    ///
    /// - Throws: `itemNotFound` when none does, `param` when several do.
    private static func member(named name: String, in membership: SyncMembership) throws(KeychainError)
        -> SyncCircle.Member
    {
        let wanted = name.lowercased()
        let matches = membership.circle.members.filter {
            $0.name == name || (wanted.count >= 4 && Hexadecimal.text($0.identifier).hasPrefix(wanted))
        }
        guard let member = matches.first else {
            throw KeychainError(.itemNotFound, "no device of the circle is named \(name) (clavis sync status)")
        }
        guard matches.count == 1 else {
            throw KeychainError(.param, "\(name) names \(matches.count) devices: give more of the identifier")
        }
        return member
    }

    /// Refuses a command that needs a device in no circle.
    private static func requireNoCircle(_ record: SyncDeviceRecord?) throws(KeychainError) {
        guard record != nil else { return }
        throw KeychainError(
            .duplicateItem,
            "this device is in a sync circle already, or waits to join one: clavis sync disable --forget first")
    }

    /// A connection to `server`.
    private static func connect(_ server: String) throws(KeychainError) -> SyncDatabase {
        guard !server.isEmpty else {
            throw KeychainError(.param, "name the sync server (a libpq connection string: host=… dbname=… user=…)")
        }
        guard !SyncConnectionString.carriesPassword(server) else {
            throw KeychainError(
                .param, "the sync server's connection string holds a password: put it in ~/.pgpass or PGPASSWORD")
        }
        return try SyncDatabase(connectionString: server)
    }
}
