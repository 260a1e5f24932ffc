/// An object of the Secret Service, as its D-Bus path names it:
///
/// | path | object |
/// |---|---|
/// | `/org/freedesktop/secrets` | the service |
/// | `/org/freedesktop/secrets/collection/NAME` | a collection |
/// | `/org/freedesktop/secrets/aliases/ALIAS` | the collection an alias names (`default` is `login`) |
/// | `/org/freedesktop/secrets/collection/NAME/ID` | an item |
/// | `/org/freedesktop/secrets/session/N`, `…/prompt/N` | a session, a prompt |
enum SecretServiceObject: Hashable {
    case service
    case collection(String)
    case item(collection: String, id: String)
    case session(String)
    case prompt(String)

    /// The service's path.
    static let root = "/org/freedesktop/secrets"
    /// The collection the `default` alias names: the keychain's own, as gnome-keyring calls it.
    static let defaultCollection = "login"
    /// The one alias Clavis keeps.
    static let defaultAlias = "default"

    /// The object `path` names, an alias resolved to its collection; `nil` for a path outside the service.
    init?(path: String) {
        if path == Self.root {
            self = .service
            return
        }
        guard path.hasPrefix(Self.root + "/") else { return nil }
        let elements = path.dropFirst(Self.root.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard elements.allSatisfy(Self.isPathElement) else { return nil }
        switch (elements.first, elements.count) {
        case ("collection", 2): self = .collection(String(elements[1]))
        case ("collection", 3): self = .item(collection: String(elements[1]), id: String(elements[2]))
        case ("aliases", 2) where elements[1] == Self.defaultAlias: self = .collection(Self.defaultCollection)
        case ("aliases", 2) where elements[1] == SessionCollection.name: self = .collection(SessionCollection.name)
        case ("session", 2): self = .session(String(elements[1]))
        case ("prompt", 2): self = .prompt(String(elements[1]))
        default: return nil
        }
    }

    /// The object's path.
    var path: String {
        switch self {
        case .service: Self.root
        case .collection(let name): Self.root + "/collection/" + name
        case .item(let collection, let id): Self.root + "/collection/" + collection + "/" + id
        case .session(let number): Self.root + "/session/" + number
        case .prompt(let number): Self.root + "/prompt/" + number
        }
    }

    /// True for a non-empty D-Bus path element (ASCII letters, digits and `_`).
    static func isPathElement(_ element: Substring) -> Bool {
        !element.isEmpty
            && element.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x5F
            }
    }
}
