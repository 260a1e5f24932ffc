import ClavisCore

/// The Secret Service's behaviour: answers each request the D-Bus layer hands over, for the caller's keychain
/// (`SecretServiceKeychain`), keeping the callers' sessions and pending prompts.
///
/// Used by the bus's thread alone, one request at a time (hence `@unchecked Sendable`: it is handed to that thread
/// once and never touched elsewhere).
final class SecretServiceProvider: @unchecked Sendable {
    /// An unlock waiting for its `Prompt()`: whose it is and the objects it unlocks.
    struct PendingUnlock {
        var owner: String
        var objects: [String]
    }

    /// How a caller's keychain is reached: from its request and what it proved, or why it is refused.
    typealias KeychainSource = (SecretServiceRequest, SecretServiceKeychain.CallerAuthentication)
        throws(SecretServiceError) -> SecretServiceKeychain

    /// The caller's keychain.
    let keychain: KeychainSource
    /// Records each call answered (not a client's leaving), with the caller's keychain when it was reached and the
    /// failure when there was one.
    let record: (SecretServiceRequest, SecretServiceKeychain?, SecretServiceError?) -> Void
    /// What each client on the bus proved, by unique name.
    var authentications: [String: SecretServiceKeychain.CallerAuthentication] = [:]
    /// Open sessions by number.
    var sessions: [String: SecretServiceSession] = [:]
    /// Pending prompts by number.
    var prompts: [String: PendingUnlock] = [:]
    private var lastNumber = 0

    /// A provider answering for the keychain `keychain` gives each caller, telling `record` of each call.
    init(
        keychain: @escaping KeychainSource,
        record: @escaping (SecretServiceRequest, SecretServiceKeychain?, SecretServiceError?) -> Void
    ) {
        self.keychain = keychain
        self.record = record
    }

    /// The answer to `request`.
    func answer(_ request: SecretServiceRequest) -> Result<SecretServiceReply, SecretServiceError> {
        if request.operation == .clientGone {
            sessions = sessions.filter { $0.value.owner != request.sender }
            prompts = prompts.filter { $0.value.owner != request.sender }
            authentications[request.sender] = nil
            return .success(SecretServiceReply())
        }
        var keychain: SecretServiceKeychain?
        do {
            let reply = try reply(to: request, reaching: &keychain)
            record(request, keychain, nil)
            return .success(reply)
        } catch {
            record(request, keychain, error)
            guard error.kind == .noSuchObject else { return .failure(error) }
            // Named as gnome-keyring names it: the object the call was made on.
            return .failure(
                SecretServiceError(.noSuchObject, "Object does not exist at path \u{201C}\(request.path)\u{201D}"))
        }
    }

    private func reply(to request: SecretServiceRequest, reaching reached: inout SecretServiceKeychain?)
        throws(SecretServiceError) -> SecretServiceReply
    {
        guard let object = SecretServiceObject(path: request.path) else {
            throw SecretServiceError(.noSuchObject, "no such object")
        }
        let authentication = authentications[request.sender] ?? SecretServiceKeychain.CallerAuthentication()
        authentications[request.sender] = authentication
        let keychain = try self.keychain(request, authentication)
        reached = keychain
        var reply = try reply(to: request, object: object, keychain)
        // What an opted-out program changes, only it hears of: other clients would learn its items' paths.
        reply.signalsArePrivate = !keychain.isShared
        return reply
    }

    private func reply(
        to request: SecretServiceRequest, object: SecretServiceObject, _ keychain: SecretServiceKeychain
    ) throws(SecretServiceError) -> SecretServiceReply {
        switch request.operation {
        case .openSession: return try openSession(request)
        case .closeSession:
            guard case .session(let number) = object, sessions[number]?.owner == request.sender else {
                throw SecretServiceError(.noSuchObject, "no such session")
            }
            sessions[number] = nil
            return SecretServiceReply()
        case .searchItems: return try search(request, in: object, keychain)
        case .unlock: return try unlock(request.objects, for: request.sender, keychain)
        case .lock:
            // The whole keychain locks: its WhenUnlocked classes close, as on a locked device.
            do {
                try keychain.service.lock()
            } catch {
                throw SecretServiceError(error)
            }
            return SecretServiceReply(paths: request.objects)
        case .getSecrets: return try secrets(request, keychain)
        case .readAlias:
            let collection: String? =
                switch request.text {
                case SecretServiceObject.defaultAlias: SecretServiceObject.defaultCollection
                case SessionCollection.name: SessionCollection.name
                default: nil
                }
            return SecretServiceReply(paths: collection.map { [SecretServiceObject.collection($0).path] } ?? [])
        case .setAlias:
            guard request.text == SecretServiceObject.defaultAlias,
                request.object == SecretServiceObject.collection(SecretServiceObject.defaultCollection).path
            else {
                throw SecretServiceError(.notSupported, "the default alias names the login collection, always")
            }
            return SecretServiceReply()
        case .createCollection: return try createCollection(request, keychain)
        case .delete: return try delete(object, keychain)
        case .createItem: return try createItem(request, in: object, keychain)
        case .setSecret: return try setSecret(request, of: object, keychain)
        case .describe: return try describe(object, withChildren: request.withChildren, keychain)
        case .setProperties: return try setProperties(request, of: object, keychain)
        case .prompt: return prompt(request, object, keychain)
        case .dismiss:
            guard case .prompt(let number) = object, prompts.removeValue(forKey: number) != nil else {
                throw SecretServiceError(.noSuchObject, "no such prompt")
            }
            return SecretServiceReply(dismissed: true)
        case .clientGone: throw SecretServiceError(.failed, "a client's leaving is not a call")
        }
    }

    /// A number for a new session or prompt, never used before in this daemon's life.
    private func nextNumber() -> String {
        lastNumber += 1
        return String(lastNumber)
    }

    // MARK: Sessions

    private func openSession(_ request: SecretServiceRequest) throws(SecretServiceError) -> SecretServiceReply {
        let (session, output) = try SecretServiceSession.open(
            owner: request.sender, algorithm: request.text, input: request.input)
        let number = nextNumber()
        sessions[number] = session
        return SecretServiceReply(paths: [SecretServiceObject.session(number).path], bytes: output)
    }

    /// The caller's session at `path`.
    ///
    /// - Throws: `NoSession` for a path that names none of the caller's sessions.
    func session(_ path: String, of sender: String) throws(SecretServiceError) -> SecretServiceSession {
        guard case .session(let number) = SecretServiceObject(path: path), let session = sessions[number],
            session.owner == sender
        else {
            throw SecretServiceError(.noSession, "no such session: open one with OpenSession")
        }
        return session
    }

    // MARK: Lock and unlock

    /// Unlocks at once what is unlocked or has no passcode; otherwise a prompt the caller runs with `Prompt()`, which
    /// asks the user through the daemon's own passcode prompt: to unlock the keychain, and to open the items among
    /// `objects` that have an access control.
    private func unlock(_ objects: [String], for sender: String, _ keychain: SecretServiceKeychain)
        throws(SecretServiceError) -> SecretServiceReply
    {
        if keychain.isLocked && !keychain.service.hasPasscode {
            do {
                try keychain.service.unlock(passcode: nil)
            } catch {
                throw SecretServiceError(error)
            }
        }
        guard keychain.isLocked || !keychain.accessControlledItems(among: objects).isEmpty else {
            return SecretServiceReply(paths: objects)
        }
        let number = nextNumber()
        prompts[number] = PendingUnlock(owner: sender, objects: objects)
        return SecretServiceReply(secondPaths: [SecretServiceObject.prompt(number).path])
    }

    /// Runs a pending unlock, off the bus's thread: the daemon's pinentry asks for the passcode, to unlock the
    /// keychain, then (when items with an access control are among the objects) to prove it for the caller's session.
    /// Any failure (no pinentry, cancelled, wrong passcodes) completes the prompt as dismissed.
    private func prompt(
        _ request: SecretServiceRequest, _ object: SecretServiceObject, _ keychain: SecretServiceKeychain
    ) -> SecretServiceReply {
        guard case .prompt(let number) = object, let pending = prompts[number], pending.owner == request.sender else {
            return SecretServiceReply(dismissed: true)
        }
        prompts[number] = nil
        let objects = pending.objects
        var reply = SecretServiceReply()
        reply.deferredPrompt = {
            do throws(KeychainError) {
                if keychain.isLocked {
                    _ = try keychain.service.promptForPasscode(
                        PasscodePrompt(
                            purpose: .unlock,
                            description: "A program asks through the Secret Service to unlock your keychain."))
                }
                if !keychain.accessControlledItems(among: objects).isEmpty {
                    _ = try keychain.service.promptForPasscode(
                        PasscodePrompt(
                            purpose: .verify(keychain.authentication.session),
                            description: "A program asks through the Secret Service to read a protected item."))
                }
            } catch {
                DaemonLog.report("a Secret Service unlock prompt ended without unlocking: \(error.code.message)")
                return SecretServiceReply(dismissed: true)
            }
            return SecretServiceReply(paths: objects)
        }
        return reply
    }
}
