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
    /// Describe: whether the object's children (the service's collections, a collection's items) are wanted.
    var withChildren: Bool
}
