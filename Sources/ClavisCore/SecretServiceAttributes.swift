public import FoundationEssentials

/// The free-form attributes of a Secret Service item (`org.freedesktop.Secret.Item.Attributes`, a string-to-string
/// map such as `service=smtp`, `user=anna`), as a keychain item stores them in its `ssat` attribute.
///
/// The store files each `name=value` pair under a keyed digest of its own, so a search by attributes reaches the
/// items holding every pair without decrypting any other.
public struct SecretServiceAttributes: Sendable, Hashable {
    /// The attributes, by name.
    public var pairs: [String: String]

    /// Wraps the attributes.
    public init(_ pairs: [String: String]) { self.pairs = pairs }

    /// Decodes the form `encoded` gives; `nil` when the bytes are not one.
    public init?(encoded: Data) {
        var reader = ByteReader(Array(encoded), subject: "Secret Service attributes")
        do {
            guard try reader.byte() == Self.version else { return nil }
            let count = try reader.uint32()
            guard count <= encoded.count else { return nil }
            var pairs: [String: String] = [:]
            for _ in 0..<count {
                let name = try reader.string()
                guard pairs.updateValue(try reader.string(), forKey: name) == nil else { return nil }
            }
            guard reader.isAtEnd else { return nil }
            self.pairs = pairs
        } catch {
            return nil
        }
    }

    /// The Secret Service attributes an item's attributes hold in `ssat`; `nil` when it holds none, or bytes that are
    /// not an encoding of them.
    public init?(of attributes: [AttributeKey: AttributeValue]) {
        guard case .data(let encoded) = attributes[.secretServiceAttributes] else { return nil }
        self.init(encoded: encoded)
    }

    /// A deterministic binary form (a version byte, the count, then each name and value with a 32-bit length,
    /// sorted by name): the value of the `ssat` attribute.
    public var encoded: Data {
        var writer = ByteWriter()
        writer.byte(Self.version)
        writer.uint32(UInt32(pairs.count))
        for (name, value) in pairs.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            writer.string(value)
        }
        return Data(writer.bytes)
    }

    /// True when every pair of `wanted` is among these attributes (an empty `wanted` matches anything).
    public func contains(_ wanted: [String: String]) -> Bool {
        wanted.allSatisfy { name, value in pairs[name] == value }
    }

    /// One pair's canonical bytes, which its lookup digest is computed over: the name and the value, each with its
    /// length, so that no two pairs share a form.
    public static func pairForm(name: String, value: String) -> Data {
        var writer = ByteWriter()
        writer.string(name)
        writer.string(value)
        return Data(writer.bytes)
    }

    private static let version: UInt8 = 1
}
