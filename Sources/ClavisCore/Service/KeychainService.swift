public import FoundationEssentials

/// Every operation a keychain client needs, behind one seam: the embedded keychain in this process, or the daemon
/// over its socket. `Security`, `LocalAuthentication` and `clavis` reach the keychain only through it.
///
/// The caller's identity (application identifier and access groups) is resolved behind the seam, never taken
/// from the caller: the embedded implementation reads the entitlements named by the configuration, the daemon
/// learns them from the peer. Access groups in requests are the caller's wishes, checked there:
/// - `NewItem.attributes[.accessGroup]`: absent means the caller's default group; a group it lacks is
///   `missingEntitlement`.
/// - `ItemQuery.accessGroups`: `nil` searches every group the caller holds; a list narrows to those, each of which
///   it must hold.
/// - `ItemChanges.attributes[.accessGroup]`: a new group the caller must hold.
///
/// Item calls answer a value rather than throw when the caller has to do something first (`ServiceAnswer`); a
/// thrown error means the call failed.
public protocol KeychainService: Sendable {
    /// Stores a new item and returns it as stored (with `cdat`, `mdat`, `pdmn`, `agrp`, `sync` and its reference).
    ///
    /// - Throws: `duplicateItem` when an item with the same primary key exists, `param`/`noSuchAttribute`/
    ///   `dataTooLarge` for bad input, `missingEntitlement` for a group the caller lacks.
    func add(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item>

    /// The matching items in insertion order, at most `query.limit`; an empty array when none match.
    func find(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<[Item]>

    /// The persistent references of the matching items that `find` cannot read while the keychain is locked (their
    /// protection class is closed), in insertion order, at most `query.limit`: what an unlock would open. Found
    /// without decrypting anything, by the attributes the store keeps keyed lookup digests of
    /// (`AttributeSchema.indexed`, Secret Service pairs, the access groups, which the caller's groups narrow as for
    /// `find`) and the protection class; nothing but the references is revealed. A digest is short, so a collision only
    /// adds a candidate that the unlocked item may turn out not to match. Empty while the keychain is unlocked.
    ///
    /// - Throws: `param` for a query naming another attribute (only the sealed item could answer it).
    func lockedItemReferences(_ query: ItemQuery) throws(KeychainError) -> [PersistentReference]

    /// Applies `changes` to every matching item in one transaction; how many changed.
    func update(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError) -> ServiceAnswer<Int>

    /// Deletes every matching item in one transaction; how many were deleted.
    func delete(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<Int>

    /// Generates an EC P-256 private key inside the service and stores it as the key item `item` describes (its
    /// secret ignored), held by the token `item.attributes[.tokenID]` names (`TokenKey.secureEnclave`): the
    /// private key never leaves the service. Returns the item as stored, whose secret is the public key (ANSI X9.63).
    ///
    /// - Throws: as `add`; `param` for another token or a protection class that may leave the device.
    func addGeneratedKey(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item>

    /// Runs `use` with the private key of the token-held key item `reference` names, as `authentication` allows
    /// (the item's access control is checked as for reading its secret); the signature or shared secret.
    ///
    /// - Throws: `itemNotFound` when no such item is in the caller's groups, `param` for a key the service does
    ///   not hold or input the key refuses.
    func useKey(_ reference: PersistentReference, for use: KeyUse, authentication: AuthenticationProof?)
        throws(KeychainError) -> ServiceAnswer<SecureBytes>

    /// Generates an EC P-256 private key inside the service, as `addGeneratedKey` does, without storing it: the key
    /// is handed out sealed to this keychain (`SealedKey`), bound to the access group (checked as `add` checks it)
    /// and access control `item` names; its public key is the answered item's secret.
    ///
    /// - Throws: as `addGeneratedKey`.
    func generateSealedKey(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<SealedKey>

    /// Runs `use` with the private key sealed in `box` (`SealedKey.box`), as `authentication` allows its access
    /// control; the signature or shared secret. `.needsUnlock` while its protection class is closed.
    ///
    /// - Throws: `missingEntitlement` when the caller lacks the key's access group, `decode` for a box this keychain
    ///   did not seal, `param` for input the key refuses.
    func useSealedKey(_ box: [UInt8], for use: KeyUse, authentication: AuthenticationProof?)
        throws(KeychainError) -> ServiceAnswer<SecureBytes>

    /// Stores the key sealed in `box` (`SealedKey.box`) as the key item `item` describes (label, tag; its secret
    /// ignored), with the access group, protection and access control the key was made with: a key made without
    /// `kSecAttrIsPermanent`, kept after all. Returns the item as stored, whose secret is the public key.
    ///
    /// - Throws: as `add`; `missingEntitlement` when the caller lacks the key's group, `param` when `item` names
    ///   another group, `decode` for a box this keychain did not seal.
    func addSealedKey(_ box: [UInt8], as item: NewItem) throws(KeychainError) -> ServiceAnswer<Item>

    /// Locks the keychain: the `WhenUnlocked` classes close.
    func lock() throws(KeychainError)

    /// Unlocks with the passcode (`nil` when none is set); `authFailed` for a wrong one, which counts toward the
    /// lockout every client shares.
    func unlock(passcode: SecureBytes?) throws(KeychainError)

    /// Checks the passcode without changing the lock state and, when it is right, records it for `session`, whose
    /// proofs then count the passcode for the reuse window; returns the identity of the keychain that checked it.
    /// A right passcode also ends a biometric lockout.
    ///
    /// - Throws: `authFailed` for a wrong passcode or during a lockout, `notAvailable` when none is set.
    func verifyPasscode(_ passcode: SecureBytes, session: AuthenticationSessionID?) throws(KeychainError) -> Data

    /// Asks for the passcode through the service's own trusted prompt (the daemon's `pinentry`), which the client
    /// never sees, and checks it for `prompt.purpose`: unlocking, or verifying for a session as `verifyPasscode`.
    /// Wrong answers count toward the lockout; the prompt's own number of tries is asked at most.
    ///
    /// - Throws: `unimplemented` when the service has no trusted prompt (`KeychainStatus.hasTrustedPrompt`),
    ///   `userCanceled`, `authFailed`, `interactionNotAllowed` when the prompt cannot reach the user.
    func promptForPasscode(_ prompt: PasscodePrompt) throws(KeychainError) -> Data

    /// What the service's biometric sensor says without a check.
    func biometryStatus() throws(KeychainError) -> BiometryStatus

    /// One biometric check by the service's sensor; a match is recorded for `session` with its enrolment state.
    /// The outcome is the enrolment state matched under, or why there was no match.
    func scanBiometry(reason: String, session: AuthenticationSessionID) throws(KeychainError)
        -> Result<Data, AuthenticationFailure>

    /// Forgets what `session` proved (`LAContext.invalidate()`).
    func endAuthenticationSession(_ session: AuthenticationSessionID) throws(KeychainError)

    /// Sets, changes or (with `newPasscode` nil) removes the passcode after checking `current`.
    func setPasscode(_ newPasscode: SecureBytes?, current: SecureBytes?, strength: PasscodeStrength)
        throws(KeychainError)

    /// The keychain's state and the caller's identity as the service sees them.
    func status() throws(KeychainError) -> KeychainStatus

    /// A backup of the caller's items that may leave the device, sealed under `passphrase`.
    func exportBackup(passphrase: SecureBytes, strength: PasscodeStrength) throws(KeychainError)
        -> (archive: Data, summary: BackupSummary)

    /// Restores a backup into the caller's groups; a backup holding another group's item is refused whole
    /// (`missingEntitlement`, naming the groups).
    func importBackup(_ archive: Data, passphrase: SecureBytes) throws(KeychainError) -> RestoreSummary

    /// Deletes every item of those of `groups` that no registered app holds, whatever its protection class, lock
    /// state or access control: the items of an app removed for good (`clavis app remove --delete-items`). The daemon
    /// checks each group against its app registry, so a group another registered app holds is kept; the embedded
    /// keychain, which has no registry, purges the groups as given.
    ///
    /// - Throws: `missingEntitlement` unless the caller is a keychain administrator.
    func purgeAccessGroups(_ groups: [String]) throws(KeychainError) -> AccessGroupPurge

    /// Runs `command` on this device's sync (its circle of the user's devices, and the rounds that carry
    /// `kSecAttrSynchronizable` items between them) and answers how sync stands after it.
    ///
    /// - Throws: `missingEntitlement` unless the caller is a keychain administrator; `notAvailable` when the server
    ///   cannot be reached; `itemNotFound`, `duplicateItem`, `authFailed` or `verifyFailed` as the command says.
    func sync(_ command: SyncCommand) throws(KeychainError) -> SyncStatus

    /// The access log's entries that `query` asks for and the caller may see (its own user's; root sees every
    /// user's), oldest first.
    ///
    /// - Throws: `unimplemented` where no access log is kept: the embedded keychain, since only a daemon can record
    ///   what every program did.
    func accessLog(_ query: AccessLogQuery) throws(KeychainError) -> [AccessLogEntry]
}
