import ClavisCore
import ClavisEmbedded
import ClavisIPC
import FoundationEssentials

/// Carries out one request on a keychain service and says what happened: the response, and what the access log
/// records of it.
enum RequestHandler {
    /// What a request was about, for its access-log entry: never an attribute value or a secret.
    struct Subject {
        var operation: String
        var itemClass: ItemClass?
        var accessGroups: [String] = []
        var items: [PersistentReference] = []
    }

    /// Answers `request` with `service`; `.accessLog` is answered by `accessLog` (the lines the caller may see).
    static func answer(
        _ request: Request, with service: EmbeddedKeychainService, accessLog: (AccessLogQuery) -> Data
    ) -> (Response, Subject) {
        var subject = Self.subject(of: request, defaultGroup: service.entitlements.defaultGroup)
        do throws(KeychainError) {
            switch request {
            case .add, .find, .lockedItemReferences, .update, .delete:
                return (try answerItemRequest(request, with: service, subject: &subject), subject)
            case .addGeneratedKey, .useKey, .generateSealedKey, .useSealedKey, .addSealedKey:
                return (try answerKeyRequest(request, with: service, subject: &subject), subject)
            case .lock, .unlock, .verifyPasscode, .promptForPasscode, .biometryStatus, .scanBiometry,
                .endAuthenticationSession, .setPasscode:
                return (try answerAuthenticationRequest(request, with: service), subject)
            case .status, .exportBackup, .importBackup, .accessLog, .purgeAccessGroups, .sync:
                return (
                    try answerKeychainRequest(request, with: service, accessLog: accessLog, subject: &subject), subject
                )
            }
        } catch {
            return (.failure(error), subject)
        }
    }

    /// Adds, finds, updates and deletes items, naming them in `subject`.
    private static func answerItemRequest(
        _ request: Request, with service: EmbeddedKeychainService, subject: inout Subject
    ) throws(KeychainError) -> Response {
        switch request {
        case .add(let item):
            return response(try service.add(item)) { stored($0, subject: &subject) }
        case .find(let query):
            return response(try service.find(query)) { found in
                subject.items = found.map(\.persistentReference)
                if query.accessGroups == nil { subject.accessGroups = Self.groups(of: found) }
                return .items(found)
            }
        case .lockedItemReferences(let query):
            let references = try service.lockedItemReferences(query)
            subject.items = references
            return .references(references)
        case .update(let query, let changes):
            return response(try service.updateNamingItems(query, with: changes)) { changed in
                subject.items = changed
                return .count(changed.count)
            }
        case .delete(let query):
            return response(try service.deleteNamingItems(query)) { deleted in
                subject.items = deleted
                return .count(deleted.count)
            }
        default:
            preconditionFailure("\(subject.operation) is not an item request")
        }
    }

    /// Makes, stores and uses keys, naming the key items in `subject`.
    private static func answerKeyRequest(
        _ request: Request, with service: EmbeddedKeychainService, subject: inout Subject
    ) throws(KeychainError) -> Response {
        switch request {
        case .addGeneratedKey(let item):
            return response(try service.addGeneratedKey(item)) { stored($0, subject: &subject) }
        case .useKey(let reference, let use, let proof):
            return response(try service.useKey(reference, for: use, authentication: proof)) { .keyResult($0) }
        case .generateSealedKey(let item):
            return response(try service.generateSealedKey(item)) { key in
                subject.accessGroups = [key.item.accessGroup]
                return .sealedKey(key)
            }
        case .useSealedKey(let box, let use, let proof):
            return response(try service.useSealedKey(box, for: use, authentication: proof)) { .keyResult($0) }
        case .addSealedKey(let box, let item):
            return response(try service.addSealedKey(box, as: item)) { stored($0, subject: &subject) }
        default:
            preconditionFailure("\(subject.operation) is not a key request")
        }
    }

    /// Locks, unlocks and authenticates.
    private static func answerAuthenticationRequest(
        _ request: Request, with service: EmbeddedKeychainService
    ) throws(KeychainError) -> Response {
        switch request {
        case .lock:
            try service.lock()
            return .done
        case .unlock(let passcode):
            try service.unlock(passcode: passcode)
            return .done
        case .verifyPasscode(let passcode, let session):
            return .identity(try service.verifyPasscode(passcode, session: session))
        case .promptForPasscode(let prompt):
            return .identity(try service.promptForPasscode(prompt))
        case .biometryStatus:
            return .biometry(try service.biometryStatus())
        case .scanBiometry(let reason, let session):
            return .biometricCheck(try service.scanBiometry(reason: reason, session: session))
        case .endAuthenticationSession(let session):
            try service.endAuthenticationSession(session)
            return .done
        case .setPasscode(let new, let current, let strength):
            try service.setPasscode(new, current: current, strength: strength)
            return .done
        default:
            preconditionFailure("not an authentication request")
        }
    }

    /// Answers what concerns the keychain as a whole: its status, backups, the access log, purges and sync.
    private static func answerKeychainRequest(
        _ request: Request, with service: EmbeddedKeychainService, accessLog: (AccessLogQuery) -> Data,
        subject: inout Subject
    ) throws(KeychainError) -> Response {
        switch request {
        case .status:
            return .status(try service.status())
        case .exportBackup(let passphrase, let strength):
            let (archive, summary) = try service.exportBackup(passphrase: passphrase, strength: strength)
            return .backup(archive, summary)
        case .importBackup(let archive, let passphrase):
            return .restore(try service.importBackup(archive, passphrase: passphrase))
        case .accessLog(let query):
            return .accessLog(accessLog(query))
        case .purgeAccessGroups(let groups):
            let purge = try service.purgeAccessGroups(groups)
            subject.accessGroups = purge.purgedGroups
            DaemonLog.report(Self.describe(purge, application: service.entitlements.applicationIdentifier))
            return .purge(purge)
        case .sync(let command):
            return .syncStatus(try service.sync(command))
        default:
            preconditionFailure("\(subject.operation) is not a keychain request")
        }
    }

    /// What the request names before it runs: its operation, class and the groups it asks for.
    static func subject(of request: Request, defaultGroup: String?) -> Subject {
        switch request {
        case .add(let item):
            Subject(
                operation: "add", itemClass: item.itemClass,
                accessGroups: [item.attributes[.accessGroup]?.stringValue ?? defaultGroup].compactMap { $0 })
        case .find(let query): queried("find", query)
        case .lockedItemReferences(let query): queried("lockedItemReferences", query)
        case .update(let query, _): queried("update", query)
        case .delete(let query): queried("delete", query)
        case .addGeneratedKey(let item):
            Subject(
                operation: "generateKey", itemClass: .key,
                accessGroups: [item.attributes[.accessGroup]?.stringValue ?? defaultGroup].compactMap { $0 })
        // The key item used, named by its persistent reference; never the input or what the key made.
        case .useKey(let reference, _, _): Subject(operation: "useKey", itemClass: .key, items: [reference])
        case .generateSealedKey(let item):
            Subject(
                operation: "generateSealedKey", itemClass: .key,
                accessGroups: [item.attributes[.accessGroup]?.stringValue ?? defaultGroup].compactMap { $0 })
        // A key no item holds: nothing names it but the box, which stays out of the log.
        case .useSealedKey: Subject(operation: "useSealedKey", itemClass: .key)
        case .addSealedKey: Subject(operation: "addSealedKey", itemClass: .key)
        case .lock: Subject(operation: "lock")
        case .unlock: Subject(operation: "unlock")
        case .verifyPasscode: Subject(operation: "verifyPasscode")
        case .promptForPasscode: Subject(operation: "promptForPasscode")
        case .biometryStatus: Subject(operation: "biometryStatus")
        case .scanBiometry: Subject(operation: "scanBiometry")
        case .endAuthenticationSession: Subject(operation: "endAuthenticationSession")
        case .setPasscode: Subject(operation: "setPasscode")
        case .status: Subject(operation: "status")
        case .exportBackup: Subject(operation: "exportBackup")
        case .importBackup: Subject(operation: "importBackup")
        case .accessLog(let query):
            Subject(operation: "accessLog", items: query.item.map { [$0] } ?? [])
        case .purgeAccessGroups(let groups): Subject(operation: "purgeAccessGroups", accessGroups: groups)
        case .sync: Subject(operation: "sync")
        }
    }

    /// The daemon's log line for a purge: how many items went from which groups, and which groups stayed.
    static func describe(_ purge: AccessGroupPurge, application: String) -> String {
        let purged = purge.purgedGroups.isEmpty ? "no group" : purge.purgedGroups.joined(separator: ", ")
        var line = "\(application) deleted \(purge.deleted) items of a removed app's groups (\(purged))"
        if !purge.keptGroups.isEmpty {
            line += "; kept \(purge.keptGroups.joined(separator: ", ")): another registered app holds them"
        }
        return line
    }

    /// The status and outcome an access-log entry records for `response`.
    static func outcome(of response: Response) -> (status: Int32, outcome: String) {
        let interactionNotAllowed = KeychainError.Code.interactionNotAllowed.rawValue
        switch response {
        case .failure(let error): return (error.osStatus, "failed")
        case .needsUnlock: return (interactionNotAllowed, "needs unlock")
        case .needsAuthentication: return (interactionNotAllowed, "needs authentication")
        case .biometricCheck(.failure(let failure)): return (failure.keychainError.osStatus, "failed")
        // The client answers errSecItemNotFound when nothing matched, as Apple's keychain does.
        case .items(let items) where items.isEmpty: return (KeychainError.Code.itemNotFound.rawValue, "not found")
        case .count(0): return (KeychainError.Code.itemNotFound.rawValue, "not found")
        default: return (0, "done")
        }
    }

    private static func queried(_ operation: String, _ query: ItemQuery) -> Subject {
        var subject = Subject(operation: operation, itemClass: query.itemClass, accessGroups: query.accessGroups ?? [])
        if let reference = query.persistentReference { subject.items = [reference] }
        return subject
    }

    private static func groups(of items: [Item]) -> [String] {
        var seen: Set<String> = []
        return items.map(\.accessGroup).filter { seen.insert($0).inserted }
    }

    /// The answer of a call that stored `item`, which it names in `subject`.
    private static func stored(_ item: Item, subject: inout Subject) -> Response {
        subject.items = [item.persistentReference]
        subject.accessGroups = [item.accessGroup]
        return .item(item)
    }

    private static func response<Result>(_ answer: ServiceAnswer<Result>, _ done: (Result) -> Response) -> Response {
        switch answer {
        case .done(let result): done(result)
        case .needsUnlock: .needsUnlock
        case .needsAuthentication(let policy, let use): .needsAuthentication(policy, use)
        }
    }
}
