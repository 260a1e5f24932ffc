import ClavisCore
import FoundationEssentials

/// One call to the Secret Service as the D-Bus layer hands it over, in Swift types: what is asked, of which object,
/// by whom, with which arguments (each operation reads the fields the C header lists beside it).
struct SecretServiceRequest {
    /// What a request asks (the D-Bus layer's `clavis_ss_operation`).
    enum Operation {
        case openSession, closeSession, searchItems, unlock, lock, getSecrets, readAlias, setAlias
        case createCollection, delete, createItem, setSecret, describe, setProperties, prompt, dismiss, clientGone
    }

    /// A secret as it travels, encrypted by its session (or not, for `plain`: hence a zeroing container).
    struct TransportedSecret {
        var session: String
        var parameters: [UInt8]
        var value: SecureBytes
        var contentType: String
    }

    var operation: Operation
    /// The object called.
    var path: String
    /// The caller's unique bus name.
    var sender: String
    /// The caller's process and user as the bus daemon knows them; `pidfd` is open for the call only (-1 if none).
    var pid: Int32
    var uid: UInt32
    var pidfd: Int32
    var text: String
    var object: String
    var objects: [String]
    /// The attributes given, when the call carried some.
    var attributes: [String: String]?
    /// The label given, when the call carried one.
    var label: String?
    var input: [UInt8]?
    var secret: TransportedSecret?
    var replace: Bool
    /// GetSecret (one item, failing when it cannot be read) rather than GetSecrets (which leaves such items out).
    var strict: Bool
}

/// What the provider answers a request: paths, bytes, secrets, a description, signals, or a failure.
struct SecretServiceReply {
    /// The first and second lists of object paths (their meaning is the operation's: see the C header).
    var paths: [String] = []
    var secondPaths: [String] = []
    /// OpenSession's output (the server's DH public key).
    var bytes: [UInt8]?
    /// Secrets for items, sealed by the caller's session.
    var secrets: [(item: String, secret: SecretServiceRequest.TransportedSecret)] = []
    /// A described object's label, lock state, dates (seconds since 1970) and attributes.
    var description: (label: String, locked: Bool, created: UInt64, modified: UInt64)?
    var attributes: [String: String] = [:]
    /// Whether a prompt was dismissed.
    var dismissed = false
    /// Signals to emit once the call is answered: the object emitting, the member, the object named.
    var signals: [(path: String, member: String, object: String)] = []
    /// Whether the signals go to the caller alone: it keeps its items out of the other clients' sight.
    var signalsArePrivate = false
}

/// A Secret Service failure as the specification names it; its message goes to the caller, so it never holds a secret.
struct SecretServiceError: Error {
    /// The D-Bus error names the provider answers with.
    enum Kind {
        case failed, noSuchObject, isLocked, noSession, invalidArguments, notSupported, accessDenied
    }

    var kind: Kind
    var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The keychain's error as the Secret Service names it: a locked keychain is `IsLocked`, a refused caller
    /// `AccessDenied`, bad input `InvalidArgs`; anything else fails with the keychain's own one-line reason.
    init(_ error: KeychainError) {
        switch error.code {
        case .interactionNotAllowed: self.init(.isLocked, error.reason)
        case .missingEntitlement: self.init(.accessDenied, error.reason)
        case .param, .noSuchAttribute, .dataTooLarge: self.init(.invalidArguments, error.reason)
        case .itemNotFound: self.init(.noSuchObject, error.reason)
        default: self.init(.failed, error.reason)
        }
    }
}
