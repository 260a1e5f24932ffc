import ClavisClient
import ClavisCore
import ClavisCrypto
import FoundationEssentials

/// `import` of keys and certificates as other tools write them: PEM blocks (`CERTIFICATE`, `PUBLIC KEY`, `PRIVATE
/// KEY`, `EC PRIVATE KEY`, `RSA PRIVATE KEY`; `EC PARAMETERS` and text around the blocks are passed over) or one DER
/// certificate or key. Every entry is read before anything is added, and a failure removes what the import added:
/// a file is imported whole or not at all. A private key is added with its public key, as `generate-key` adds a pair.
struct KeyFileImport {
    /// The tag and label given to the keys imported.
    var tag: String?
    var label: String?

    /// One thing to import, parsed.
    enum Entry {
        case certificate(X509Certificate)
        case key(AsymmetricKey)
    }

    /// The entries of `contents` when it holds keys or certificates; `nil` when it holds none (a backup, then).
    ///
    /// - Throws: `decode` for a PEM block that does not parse, `unimplemented` for one of another kind (an
    ///   encrypted key).
    static func entries(of contents: SecureBytes) throws(KeychainError) -> [Entry]? {
        if let certificate = contents.withUnsafeBytes({ try? X509Certificate(der: Array($0)) }) {
            return [.certificate(certificate)]
        }
        if let key = key(der: contents, isPrivate: true) ?? key(der: contents, isPrivate: false) { return [.key(key)] }
        // The file's bytes are read where they are (no copy outlives the zeroing buffer).
        let parsed = contents.withUnsafeBytes { raw in
            Result { () throws(KeychainError) -> [Entry]? in
                guard let base = raw.baseAddress else { return nil }
                let bytes = Data(
                    bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none)
                return try pemEntries(bytes)
            }
        }
        return try parsed.get()
    }

    /// The entries of the PEM blocks in `bytes`, or `nil` when there is none.
    private static func pemEntries(_ bytes: Data) throws(KeychainError) -> [Entry]? {
        guard let begin = bytes.firstRange(of: Data("-----BEGIN ".utf8)) else { return nil }
        var entries: [Entry] = []
        var rest = bytes[begin.lowerBound...]
        while let start = rest.firstRange(of: Data("-----BEGIN ".utf8)) {
            guard let nameEnd = rest[start.upperBound...].firstRange(of: Data("-----".utf8)) else { break }
            let name = String(decoding: rest[start.upperBound..<nameEnd.lowerBound], as: UTF8.self)
            guard let end = rest[nameEnd.upperBound...].firstRange(of: Data("-----END \(name)-----".utf8)) else {
                throw KeychainError(.decode, "the PEM block \(name.prefix(32)) has no end line")
            }
            var body = Data(rest[nameEnd.upperBound..<end.lowerBound])
            defer { body.resetBytes(in: 0..<body.count) }
            rest = rest[end.upperBound...]
            if name == "EC PARAMETERS" { continue }  // `openssl ecparam -genkey` writes the curve before the key
            guard var der = Data(base64Encoded: body, options: .ignoreUnknownCharacters) else {
                throw KeychainError(.decode, "the PEM block \(name.prefix(32)) is not base64")
            }
            let secure = SecureBytes(der)
            der.resetBytes(in: 0..<der.count)
            switch name {
            case "CERTIFICATE":
                guard let certificate = secure.withUnsafeBytes({ try? X509Certificate(der: Array($0)) }) else {
                    throw KeychainError(.decode, "a CERTIFICATE block is not a DER certificate")
                }
                entries.append(.certificate(certificate))
            case "PUBLIC KEY", "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
                guard let key = key(der: secure, isPrivate: name != "PUBLIC KEY") else {
                    throw KeychainError(.decode, "the \(name) block is not an EC P-256/384/521 or RSA key")
                }
                entries.append(.key(key))
            default:
                throw KeychainError(
                    .unimplemented,
                    "PEM blocks of \(name.prefix(32)) are not imported (an encrypted key: decrypt it first)")
            }
        }
        guard !entries.isEmpty else { throw KeychainError(.decode, "the file holds no certificate or key") }
        return entries
    }

    /// Adds every entry, or none: a failure removes what was added and answers its call and status.
    func add(_ entries: [Entry], _ context: CommandContext) -> Int32 {
        ImportedItems.importing(context) { (imported) throws(KeychainError) in
            for entry in entries {
                switch entry {
                case .certificate(let certificate):
                    var attributes: [AttributeKey: AttributeValue] = [:]
                    if let label { attributes[.label] = .string(label) }
                    try imported.add(CertificateItemFormat.newItem(for: certificate, attributes: attributes))
                case .key(let key):
                    try imported.add(KeyItemFormat.newItem(for: key, attributes: keyAttributes))
                    if key.isPrivate {
                        try imported.add(KeyItemFormat.newItem(for: try publicKey(of: key), attributes: keyAttributes))
                    }
                }
            }
        }
    }

    /// The tag and label the keys imported take.
    private var keyAttributes: [AttributeKey: AttributeValue] {
        var attributes: [AttributeKey: AttributeValue] = [:]
        if let tag { attributes[.applicationTag] = .data(Data(tag.utf8)) }
        if let label { attributes[.label] = .string(label) }
        return attributes
    }

    /// The public half of a private key read from a file.
    private func publicKey(of key: AsymmetricKey) throws(KeychainError) -> AsymmetricKey {
        do throws(CryptoError) {
            return try key.publicKey()
        } catch {
            throw KeychainError(.param, "the public key could not be made")
        }
    }

    /// A key from a standard DER key (PKCS#8, SEC1 or PKCS#1 private; SubjectPublicKeyInfo public) that Apple's
    /// external representation holds, as `SecKeyCreateWithData` would take it back.
    private static func key(der: SecureBytes, isPrivate: Bool) -> AsymmetricKey? {
        guard let parsed = try? AsymmetricKey.standardDER(der, isPrivate: isPrivate),
            let bytes = try? KeyItemFormat.externalRepresentation(of: parsed)
        else { return nil }
        let keyClass = isPrivate ? KeyClass.privateKey : .publicKey
        return try? KeyItemFormat.key(
            externalRepresentation: bytes, keyClass: keyClass.rawValue, type: KeyType(of: parsed).rawValue)
    }
}
