/// The kinds of keychain item, with Apple's four-letter class codes as raw values.
public enum ItemClass: String, Sendable, CaseIterable, Hashable {
    /// `kSecClassGenericPassword`: any bytes under an account and a service.
    case genericPassword = "genp"
    /// `kSecClassInternetPassword`: a password for a server, protocol, port and path.
    case internetPassword = "inet"
    /// `kSecClassKey`: a cryptographic key, its external representation as the secret.
    case key = "keys"
    /// `kSecClassCertificate`: an X.509 certificate, its DER encoding as the secret.
    case certificate = "cert"
    /// `kSecClassIdentity`: a certificate with its private key, found by pairing the two stored items (never
    /// stored itself).
    case identity = "idnt"

    /// True for the classes stored as rows of their own; an identity is a certificate and a key paired when found.
    public var isStorable: Bool {
        switch self {
        case .genericPassword, .internetPassword, .key, .certificate: true
        case .identity: false
        }
    }

    /// The attributes that make an item of this class unique, in the order they are hashed.
    public var primaryKey: [AttributeKey] {
        switch self {
        case .genericPassword: Self.genericPasswordPrimaryKey
        case .internetPassword: Self.internetPasswordPrimaryKey
        case .key: Self.keyPrimaryKey
        case .certificate: Self.certificatePrimaryKey
        case .identity: []
        }
    }

    // Kept, not built per call: every read looks the primary key up several times.
    private static let genericPasswordPrimaryKey = AttributeSchema.primaryKey(of: .genericPassword)
    private static let internetPasswordPrimaryKey = AttributeSchema.primaryKey(of: .internetPassword)
    private static let keyPrimaryKey = AttributeSchema.primaryKey(of: .key)
    private static let certificatePrimaryKey = AttributeSchema.primaryKey(of: .certificate)

    /// The primary-key attributes of an item with `attributes`, the access group and `sync` aside, an absent one as
    /// "" or 0 (as the uniqueness rule counts it): a query by them reaches the one item a colliding add met.
    public func primaryKeyAttributes(of attributes: [AttributeKey: AttributeValue]) -> [AttributeKey: AttributeValue] {
        var key: [AttributeKey: AttributeValue] = [:]
        for name in primaryKey where name != .accessGroup && name != .synchronizable {
            key[name] = attributes[name] ?? .absent(attributeKinds[name] ?? .string)
        }
        return key
    }

    /// The attributes an item of this class may carry, each with the kind of value it takes.
    public var attributeKinds: [AttributeKey: AttributeValue.Kind] {
        switch self {
        case .genericPassword: Self.genericPasswordKinds
        case .internetPassword: Self.internetPasswordKinds
        case .key: Self.keyKinds
        case .certificate: Self.certificateKinds
        case .identity: Self.identityKinds
        }
    }

    // Built once: every lookup and every add asks for its class's kinds.
    private static let genericPasswordKinds = AttributeSchema.kinds(of: .genericPassword)
    private static let internetPasswordKinds = AttributeSchema.kinds(of: .internetPassword)
    private static let keyKinds = AttributeSchema.kinds(of: .key)
    private static let certificateKinds = AttributeSchema.kinds(of: .certificate)
    private static let identityKinds = AttributeSchema.kinds(of: .identity)
}
