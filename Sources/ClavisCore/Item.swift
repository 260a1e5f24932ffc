/// One keychain item as the store hands it back: its class, attributes, reference and (when asked for) its secret.
public struct Item: Sendable {
    /// The item's class.
    public var itemClass: ItemClass
    /// Every attribute the item carries, including `pdmn`, `agrp`, `sync`, `cdat` and `mdat`.
    public var attributes: [AttributeKey: AttributeValue]
    /// The item's secret (`kSecValueData`), present only when the query asked for it.
    public var secret: SecureBytes?
    /// A reference that finds this item again for as long as it exists.
    public var persistentReference: PersistentReference

    /// Creates an item value.
    public init(
        itemClass: ItemClass, attributes: [AttributeKey: AttributeValue], secret: SecureBytes?,
        persistentReference: PersistentReference
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
        self.persistentReference = persistentReference
    }

    /// The item's protection class (`pdmn`).
    public var protection: ProtectionClass {
        attributes[.accessible]?.stringValue.flatMap(ProtectionClass.init(rawValue:)) ?? .default
    }

    /// The item's access group (`agrp`).
    public var accessGroup: String { attributes[.accessGroup]?.stringValue ?? "" }

    /// Whether the item is synchronizable (`sync`).
    public var isSynchronizable: Bool { attributes[.synchronizable]?.boolValue ?? false }
}

/// An opaque, stable reference to one stored item (`kSecValuePersistentRef`).
public struct PersistentReference: Hashable, Sendable, CustomStringConvertible {
    /// The reference's bytes: the class code followed by 16 bytes the store chose.
    public let bytes: [UInt8]

    /// Wraps bytes that came from the store or from a caller.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The class named by the reference, when it is well formed.
    public var itemClass: ItemClass? {
        guard bytes.count == Self.byteCount else { return nil }
        return ItemClass(rawValue: String(decoding: bytes.prefix(Self.classCodeByteCount), as: UTF8.self))
    }

    /// The length of every reference the store makes.
    public static let byteCount = 20

    /// The length of the class code a reference starts with.
    public static let classCodeByteCount = 4

    /// Hexadecimal, for display.
    public var description: String { Hexadecimal.text(bytes) }
}
