import ClavisAuthentication
public import ClavisCore
import ClavisCrypto
public import ClavisIdentity
package import ClavisStore
public import FoundationEssentials

/// The keychain service in this process: the engine on a keychain folder, answering for one caller whose
/// entitlements were resolved when the service was made.
///
/// Applies the caller's access groups to every request (see `KeychainService`), so the rules are the daemon's too,
/// and checks every proof against its own record of what each authentication session proved (`AuthenticationLedger`):
/// the passcodes it verified and the matches of its own sensor.
public final class EmbeddedKeychainService: KeychainService {
    /// The keychain this service runs (its host's; no caller reaches it but through the service).
    let keychain: Keychain
    /// The caller's entitlements.
    public let entitlements: Entitlements
    /// Why the embedded keychain was chosen, for `status()`.
    public let reason: String
    /// The sensor and prompt the service authenticates with.
    public let authenticators: ServiceAuthenticators
    /// What each of the caller's authentication sessions proved here.
    let ledger: AuthenticationLedger
    /// The access groups registered apps hold, when an app registry decides which groups may be purged (the
    /// daemon's); `nil` when there is none.
    public let registeredGroups: (@Sendable () -> Set<String>)?
    /// The keychain's sync (its host's, shared by every service on the keychain).
    let synchronizer: KeychainSynchronizer

    /// A service on `keychain` for a caller holding `entitlements`, authenticating with `authenticators` and keeping
    /// what sessions proved in `ledger` (one per caller: share it among the services made for the same caller);
    /// `registeredGroups` names the groups an app registry still gives out, which `purgeAccessGroups` keeps;
    /// `synchronizer` runs the keychain's sync (one that runs rounds on `SyncCommand.now` only when `nil`).
    package init(
        keychain: Keychain, entitlements: Entitlements, reason: String, authenticators: ServiceAuthenticators = .none,
        ledger: AuthenticationLedger = AuthenticationLedger(),
        registeredGroups: (@Sendable () -> Set<String>)? = nil, synchronizer: KeychainSynchronizer? = nil
    ) {
        self.synchronizer = synchronizer ?? KeychainSynchronizer(keychain: keychain, runsInBackground: false)
        self.ledger = ledger
        self.registeredGroups = registeredGroups
        self.keychain = keychain
        self.entitlements = entitlements
        self.reason = reason
        self.authenticators = authenticators
    }

    public func add(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        guard item.attributes[.tokenID] == nil, item.attributes[.tokenHolder] == nil else {
            throw KeychainError(.param, "a key held by a token is made by SecKeyCreateRandomKey, not added")
        }
        return try addStoring(item)
    }

    /// `add` for any item, token-held keys included.
    func addStoring(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        var item = item
        item.authentication = vetted(item.authentication)
        item.attributes = try bindingBiometry(item.attributes)
        let group = item.attributes[.accessGroup]?.stringValue ?? entitlements.defaultGroup
        try entitlements.require(group)
        item.attributes[.accessGroup] = .string(group)
        let answer = try keychain.add(item)
        synchronizer.noteLocalChange()
        return answer
    }

    public func find(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<[Item]> {
        let scoped = try scoped(query)
        return try keychain.find(scoped).map(Self.publicOnly)
    }

    public func lockedItemReferences(_ query: ItemQuery) throws(KeychainError) -> [PersistentReference] {
        try keychain.lockedReferences(try scoped(query))
    }

    public func update(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError) -> ServiceAnswer<Int> {
        try updateNamingItems(query, with: changes).map(\.count)
    }

    /// `update`, naming the items changed (their persistent references), as clavisd's access log records them.
    public func updateNamingItems(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError)
        -> ServiceAnswer<[PersistentReference]>
    {
        let scoped = try scoped(query)
        if let group = changes.attributes[.accessGroup] {
            guard let name = group.stringValue else {
                throw KeychainError(.param, "the new access group must be a string")
            }
            try entitlements.require(name)
        }
        guard changes.attributes[.tokenID] == nil, changes.attributes[.tokenHolder] == nil else {
            throw KeychainError(.param, "the token holding a key cannot change")
        }
        var changes = changes
        changes.attributes = try bindingBiometry(changes.attributes)
        let answer = try keychain.updateNamingItems(scoped, with: changes)
        synchronizer.noteLocalChange()
        return answer
    }

    public func delete(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<Int> {
        try deleteNamingItems(query).map(\.count)
    }

    /// `delete`, naming the items deleted (their persistent references), as clavisd's access log records them.
    public func deleteNamingItems(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<[PersistentReference]> {
        let scoped = try scoped(query)
        let answer = try keychain.deleteNamingItems(scoped)
        synchronizer.noteLocalChange()
        return answer
    }

    public func lock() throws(KeychainError) {
        keychain.lock()
    }

    public func unlock(passcode: SecureBytes?) throws(KeychainError) {
        try keychain.unlock(passcode: passcode)
        synchronizer.noteLocalChange()
    }

    public func verifyPasscode(_ passcode: SecureBytes, session: AuthenticationSessionID?) throws(KeychainError)
        -> Data
    {
        try keychain.verifyPasscode(passcode)
        if let session { ledger.notePasscode(for: session) }
        authenticators.sensor.passcodeSucceeded()
        return keychain.identity
    }

    public func promptForPasscode(_ prompt: PasscodePrompt) throws(KeychainError) -> Data {
        guard let trusted = authenticators.trustedPrompt else {
            throw KeychainError(.unimplemented, "this keychain service has no passcode prompt of its own")
        }
        var failure: String?
        for _ in 0..<max(1, trusted.attempts) {
            if let until = try keychain.passcodeLockout {
                throw KeychainError.passcodeLockout(until: until, now: keychain.clock.date)
            }
            let passcode = try trusted.readPasscode(prompt, error: failure)
            do {
                switch prompt.purpose {
                case .unlock:
                    try keychain.unlock(passcode: passcode)
                    synchronizer.noteLocalChange()
                    authenticators.sensor.passcodeSucceeded()
                    return keychain.identity
                case .verify(let session):
                    return try verifyPasscode(passcode, session: session)
                }
            } catch  where error.code == .authFailed {
                failure = "Wrong passcode"
            }
        }
        throw KeychainError(.authFailed, "the keychain passcode was wrong")
    }

    public func biometryStatus() throws(KeychainError) -> BiometryStatus {
        let sensor = authenticators.sensor
        let enrolment: Result<Data, AuthenticationFailure>
        do {
            enrolment = .success(try sensor.enrolmentState())
        } catch {
            enrolment = .failure(error)
        }
        return BiometryStatus(kind: sensor.kind, enrolment: enrolment, isLockedOut: sensor.isLockedOut)
    }

    public func scanBiometry(reason: String, session: AuthenticationSessionID) throws(KeychainError)
        -> Result<Data, AuthenticationFailure>
    {
        do {
            let enrolment = try authenticators.sensor.verify(reason: reason)
            ledger.noteBiometricMatch(enrolment, for: session)
            return .success(enrolment)
        } catch {
            return .failure(error)
        }
    }

    public func endAuthenticationSession(_ session: AuthenticationSessionID) throws(KeychainError) {
        ledger.end(session)
    }

    public func setPasscode(_ newPasscode: SecureBytes?, current: SecureBytes?, strength: PasscodeStrength)
        throws(KeychainError)
    {
        // An app that could set a passcode its user does not know would hold every WhenUnlocked item to ransom.
        guard entitlements.isAdministrator else {
            throw KeychainError(
                .missingEntitlement,
                "only a keychain administrator may set the passcode (clavis app register --administrator)")
        }
        try keychain.setPasscode(newPasscode, current: current, kdf: Self.kdf(strength))
    }

    public func status() throws(KeychainError) -> KeychainStatus {
        KeychainStatus(
            location: .embedded(home: keychain.home.path), reason: reason, lockState: keychain.lockState,
            hasPasscode: keychain.hasPasscode, passcodeLockout: try keychain.passcodeLockout,
            applicationIdentifier: entitlements.applicationIdentifier, accessGroups: entitlements.accessGroups,
            hasTrustedPrompt: authenticators.trustedPrompt != nil, deviceKey: keychain.deviceKeyBinding,
            writes: keychain.writeStatistics)
    }

    public func exportBackup(passphrase: SecureBytes, strength: PasscodeStrength) throws(KeychainError)
        -> (archive: Data, summary: BackupSummary)
    {
        try keychain.exportBackup(
            passphrase: passphrase, kdf: Self.kdf(strength), accessGroups: entitlements.accessGroups)
    }

    public func importBackup(_ archive: Data, passphrase: SecureBytes) throws(KeychainError) -> RestoreSummary {
        let summary = try keychain.importBackup(
            archive, passphrase: passphrase, accessGroups: entitlements.accessGroups)
        synchronizer.noteLocalChange()
        return summary
    }

    public func purgeAccessGroups(_ groups: [String]) throws(KeychainError) -> AccessGroupPurge {
        guard entitlements.isAdministrator else {
            throw KeychainError(
                .missingEntitlement,
                "only a keychain administrator may delete a removed app's items (clavis app register --administrator)")
        }
        let held = registeredGroups?() ?? []
        var purged: [String] = []
        var kept: [String] = []
        for group in groups where !purged.contains(group) && !kept.contains(group) {
            if held.contains(group) { kept.append(group) } else { purged.append(group) }
        }
        let deleted = try keychain.deleteAccessGroups(purged)
        synchronizer.noteLocalChange()
        return AccessGroupPurge(deleted: deleted, purgedGroups: purged, keptGroups: kept)
    }

    public func sync(_ command: SyncCommand) throws(KeychainError) -> SyncStatus {
        // The circle decides which devices read every synced item: only the keychain's administrators change it.
        guard entitlements.isAdministrator else {
            throw KeychainError(
                .missingEntitlement,
                "only a keychain administrator may set up or change sync (clavis app register --administrator)")
        }
        return try synchronizer.perform(command)
    }

    /// Only clavisd keeps an access log: in this process, any program could leave its own calls out of it.
    public func accessLog(_ query: AccessLogQuery) throws(KeychainError) -> [AccessLogEntry] {
        throw KeychainError(
            .unimplemented,
            "the access log is kept by clavisd, and this keychain is embedded (\(reason)); see clavis status")
    }

    /// `query` narrowed to the groups the caller may search, with its proof as the ledger confirms it.
    func scoped(_ query: ItemQuery) throws(KeychainError) -> ItemQuery {
        var scoped = query
        scoped.accessGroups = try entitlements.searchGroups(query.accessGroups)
        scoped.authentication = vetted(query.authentication)
        return scoped
    }

    /// `proof` as the ledger confirms it: only what this service saw proved counts.
    func vetted(_ proof: AuthenticationProof?) -> AuthenticationProof? {
        ledger.vetted(proof, keychainIdentity: keychain.identity)
    }

    /// The KDF for a strength: `nil` keeps the recorded parameters or calibrates.
    private static func kdf(_ strength: PasscodeStrength) -> PasscodeKDF? {
        switch strength {
        case .standard: nil
        case .cheapForTesting: PasscodeKDF.cheapForTesting()
        }
    }
}
