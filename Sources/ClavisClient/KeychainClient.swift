public import ClavisAuthentication
public import ClavisCore
public import FoundationEssentials

/// The keychain from Swift, without Core Foundation dictionaries: typed items and queries, typed errors.
///
/// Every call goes through the keychain service the configuration names (`ServiceDirectory`): the embedded keychain
/// today, the daemon when one is configured. Access-controlled items and a locked keychain are handled as Apple's
/// `SecItem*` calls handle them: the call asks (biometry, the passcode, an application password) when the
/// `CallAuthentication` allows, and retries once satisfied.
///
/// ```swift
/// let keychain = try KeychainClient()
/// let item = NewItem(itemClass: .genericPassword,
///                    attributes: [.service: .string("api"), .account: .string("me")],
///                    secret: SecureBytes(Data("token".utf8)))
/// _ = try keychain.add(item)
/// let found = try keychain.find(ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("api")],
///                                         limit: .one, returnsSecret: true))
/// ```
public struct KeychainClient: Sendable {
    /// The settings this client was made with.
    public let configuration: ClavisConfiguration
    /// The service answering its calls.
    public let service: any KeychainService

    /// A client on the keychain `configuration` names (by default this task's: `ClavisConfiguration.current`).
    ///
    /// - Throws: `missingEntitlement` for an unreadable entitlements file; `invalidKeychain` or `io` when the
    ///   keychain cannot be opened.
    public init(configuration: ClavisConfiguration = .current) throws(KeychainError) {
        self.configuration = configuration
        service = try ServiceDirectory.service(for: configuration)
    }

    // MARK: Items

    /// Stores a new item (in the caller's default access group unless it names one) and returns it as stored.
    ///
    /// - Throws: `duplicateItem`, `missingEntitlement`, `param`, `noSuchAttribute`, `dataTooLarge`,
    ///   `interactionNotAllowed` (locked, and nobody may be asked), `notAvailable` (the item needs a passcode the
    ///   keychain does not have).
    public func add(_ item: NewItem, authentication: CallAuthentication = CallAuthentication()) throws(KeychainError)
        -> Item
    {
        try authenticatedAdd(item, authentication, service.add)
    }

    /// The items matching `query` in insertion order, at most `query.limit`; empty when none match.
    public func find(_ query: ItemQuery, authentication: CallAuthentication = CallAuthentication())
        throws(KeychainError) -> [Item]
    {
        try AuthenticatedCall.run(authentication, operation: .find, client: self) {
            (proof, unauthenticated) throws(KeychainError) in
            var query = query
            query.authentication = proof
            query.unauthenticatedItems = unauthenticated
            return try service.find(query)
        }
    }

    /// Applies `changes` to every item matching `query`, all or none; how many changed.
    public func update(
        _ query: ItemQuery, with changes: ItemChanges, authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> Int {
        try AuthenticatedCall.run(authentication, operation: .update, client: self) {
            (proof, _) throws(KeychainError) in
            var query = query
            query.authentication = proof
            return try service.update(query, with: changes)
        }
    }

    /// Deletes every item matching `query`, all or none; how many were deleted.
    public func delete(_ query: ItemQuery, authentication: CallAuthentication = CallAuthentication())
        throws(KeychainError) -> Int
    {
        try AuthenticatedCall.run(authentication, operation: .delete, client: self) {
            (proof, _) throws(KeychainError) in
            var query = query
            query.authentication = proof
            return try service.delete(query)
        }
    }

    // MARK: Keys the service holds

    /// Generates a private key inside the keychain service and stores it as `item` describes, held by the token
    /// its `tokenID` names; returns the item as stored, whose secret is the public key.
    public func addGeneratedKey(_ item: NewItem, authentication: CallAuthentication = CallAuthentication())
        throws(KeychainError) -> Item
    {
        try authenticatedAdd(item, authentication, service.addGeneratedKey)
    }

    /// Runs `use` with the private key of the token-held key item `reference` names, authenticating for its
    /// access control as a read of its secret would; the signature or shared secret.
    public func useKey(
        _ reference: PersistentReference, for use: KeyUse, authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> SecureBytes {
        try AuthenticatedCall.run(authentication, operation: .find, client: self) {
            (proof, _) throws(KeychainError) in
            try service.useKey(reference, for: use, authentication: proof)
        }
    }

    /// Generates a private key inside the keychain service, as `addGeneratedKey` does, without storing it: the
    /// key answered is sealed to the keychain, and only the service opens it, for each `useSealedKey`.
    public func generateSealedKey(_ item: NewItem, authentication: CallAuthentication = CallAuthentication())
        throws(KeychainError) -> SealedKey
    {
        try authenticatedAdd(item, authentication, service.generateSealedKey)
    }

    /// Runs `use` with the private key sealed in `box` (`SealedKey.box`), authenticating for its access control as
    /// a read of a key item's secret would; the signature or shared secret.
    public func useSealedKey(
        _ box: [UInt8], for use: KeyUse, authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> SecureBytes {
        try AuthenticatedCall.run(authentication, operation: .find, client: self) {
            (proof, _) throws(KeychainError) in
            try service.useSealedKey(box, for: use, authentication: proof)
        }
    }

    /// Stores the key sealed in `box` (`SealedKey.box`) as the key item `item` describes, with the group,
    /// protection and access control it was made with; returns the item as stored, whose secret is the public key.
    public func addSealedKey(
        _ box: [UInt8], as item: NewItem, authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> Item {
        try authenticatedAdd(item, authentication) { (item) throws(KeychainError) in
            try service.addSealedKey(box, as: item)
        }
    }

    /// Runs `call`, an add of `item`, with the proof `authentication` obtains set as the item's, asking and retrying
    /// as the answers need.
    private func authenticatedAdd<Result: Sendable>(
        _ item: NewItem, _ authentication: CallAuthentication,
        _ call: (NewItem) throws(KeychainError) -> ServiceAnswer<Result>
    ) throws(KeychainError) -> Result {
        try AuthenticatedCall.run(authentication, operation: .add, client: self) {
            (proof, _) throws(KeychainError) in
            var item = item
            item.authentication = proof
            return try call(item)
        }
    }

    // MARK: The keychain

    /// Deletes the items of those of `groups` no registered app holds: a removed app's (see
    /// `KeychainService.purgeAccessGroups`).
    public func purgeAccessGroups(_ groups: [String]) throws(KeychainError) -> AccessGroupPurge {
        try service.purgeAccessGroups(groups)
    }

    /// The keychain's state and the caller's identity as the service sees them.
    public func status() throws(KeychainError) -> KeychainStatus {
        try service.status()
    }

    /// Carries out `command` on this device's sync and answers how sync stands after it: the native API of
    /// `clavis sync` (see `SyncCommand`; a keychain administrator's call).
    public func sync(_ command: SyncCommand) throws(KeychainError) -> SyncStatus {
        try service.sync(command)
    }

    /// What clavisd recorded of the operations it served that `query` asks for: the caller's own user's (root sees
    /// every user's), oldest first.
    ///
    /// - Throws: `unimplemented` when the keychain is embedded (only the daemon keeps an access log).
    public func accessLog(_ query: AccessLogQuery = AccessLogQuery()) throws(KeychainError) -> [AccessLogEntry] {
        try service.accessLog(query)
    }

    /// Locks the keychain.
    public func lock() throws(KeychainError) {
        try service.lock()
    }

    /// Unlocks with the passcode (`nil` when none is set); `authFailed` for a wrong one.
    public func unlock(passcode: SecureBytes?) throws(KeychainError) {
        try service.unlock(passcode: passcode)
    }

    /// Unlocks a locked keychain that has a passcode by asking for it (askpass or terminal, a few tries), as macOS
    /// asks before using a locked keychain; throws `otherwise` when there is nothing to unlock or nobody to ask.
    ///
    /// - Throws: `authFailed` when every answer was wrong, or while attempts are locked out (saying for how long,
    ///   without asking), `userCanceled`.
    public func unlockAsking(otherwise blocked: KeychainError) throws(KeychainError) {
        let status = try service.status()
        guard status.hasPasscode, status.lockState != .unlocked else { throw blocked }
        if status.hasTrustedPrompt {
            let prompt = PasscodePrompt(
                purpose: .unlock, description: "Unlock the keychain", hints: configuration.promptHints)
            _ = try service.promptForPasscode(prompt)
            return
        }
        guard let reader = Authenticators.passcodeReader(askpassProgram: configuration.askpassProgram) else {
            throw blocked
        }
        do {
            try reader.askForPasscode(prompt: Self.unlockPrompt) { () throws(KeychainError) in
                try service.status().passcodeLockout
            } check: { passcode throws(KeychainError) in
                try service.unlock(passcode: passcode)
            }
        } catch  where error.code == .userCanceled {
            throw KeychainError(.userCanceled, "unlocking the keychain was canceled")
        }
    }

    /// The prompt for the keychain passcode, as `security` words it.
    public static let unlockPrompt = "password to unlock keychain: "

    /// Sets, changes or (with `newPasscode` nil) removes the passcode after checking `current`.
    public func setPasscode(
        _ newPasscode: SecureBytes?, current: SecureBytes?, strength: PasscodeStrength = .standard
    ) throws(KeychainError) {
        try service.setPasscode(newPasscode, current: current, strength: strength)
    }

    /// A backup of the caller's items that may leave the device, sealed under `passphrase`.
    public func exportBackup(passphrase: SecureBytes, strength: PasscodeStrength = .standard)
        throws(KeychainError) -> (archive: Data, summary: BackupSummary)
    {
        try service.exportBackup(passphrase: passphrase, strength: strength)
    }

    /// Restores a backup into the caller's groups.
    public func importBackup(_ archive: Data, passphrase: SecureBytes) throws(KeychainError) -> RestoreSummary {
        try service.importBackup(archive, passphrase: passphrase)
    }

    // MARK: Authentication

    /// A new authentication session (the state behind an `LAContext`) with the authenticators the configuration
    /// names, checking passcodes with this client's keychain.
    public func makeAuthenticationSession() -> AuthenticationSession {
        Self.makeAuthenticationSession(configuration: configuration)
    }

    /// A new authentication session for the keychain `configuration` names, which is reached only when the session
    /// needs it (so a context can be made before the keychain can be opened). Biometric checks and passcode checks
    /// run in the keychain service, which records them for this session: in daemon mode, the daemon's sensor is the
    /// one that counts.
    public static func makeAuthenticationSession(configuration: ClavisConfiguration = .current)
        -> AuthenticationSession
    {
        let id = AuthenticationSessionID.random()
        let service: @Sendable () throws(KeychainError) -> any KeychainService = { () throws(KeychainError) in
            try ServiceDirectory.service(for: configuration)
        }
        return AuthenticationSession(
            id: id,
            authenticators: Authenticators(
                sensor: ServiceSensor(session: id, service: service),
                passcode: PasscodeAuthenticator(
                    reader: Authenticators.passcodeReader(askpassProgram: configuration.askpassProgram)),
                verifier: { () throws(KeychainError) -> any PasscodeVerifier in
                    ServicePasscodeVerifier(
                        service: try service(), session: id, promptHints: configuration.promptHints)
                },
                endSession: { session in try? service().endAuthenticationSession(session) }),
            clock: configuration.clock)
    }
}

/// The keychain service as the passcode authenticator's verifier, for one authentication session.
struct ServicePasscodeVerifier: PasscodeVerifier {
    let service: any KeychainService
    /// The session a right passcode is recorded for.
    let session: AuthenticationSessionID?
    /// Where the user sits, for the service's own prompt.
    var promptHints: [String: String] = [:]

    var hasPasscode: Bool { (try? service.status().hasPasscode) ?? false }

    func verifyPasscode(_ passcode: SecureBytes) throws(KeychainError) -> Data {
        try service.verifyPasscode(passcode, session: session)
    }

    var passcodeLockout: Date? {
        get throws(KeychainError) { try service.status().passcodeLockout }
    }

    var hasTrustedPrompt: Bool { (try? service.status().hasTrustedPrompt) ?? false }

    func promptForPasscode(description: String) throws(KeychainError) -> Data {
        let purpose: PasscodePrompt.Purpose = session.map { .verify($0) } ?? .unlock
        return try service.promptForPasscode(
            PasscodePrompt(purpose: purpose, description: description, hints: promptHints))
    }
}
