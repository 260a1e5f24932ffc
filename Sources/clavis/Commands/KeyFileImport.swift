import ClavisCore
import ClavisCrypto
import Foundation
import Security

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
        case certificate(SecCertificate)
        case key(SecKey)
    }

    /// The entries of `contents` when it holds keys or certificates; `nil` when it holds none (a backup, then).
    ///
    /// - Throws: `decode` for a PEM block that does not parse, `unimplemented` for one of another kind (an
    ///   encrypted key).
    static func entries(of contents: SecureBytes) throws(KeychainError) -> [Entry]? {
        if let certificate = SecCertificateCreateWithData(nil, contents.withUnsafeBytes { Data($0) } as CFData) {
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
        guard let begin = bytes.range(of: Data("-----BEGIN ".utf8)) else { return nil }
        var entries: [Entry] = []
        var rest = bytes[begin.lowerBound...]
        while let start = rest.range(of: Data("-----BEGIN ".utf8)) {
            guard let nameEnd = rest[start.upperBound...].range(of: Data("-----".utf8)) else { break }
            let name = String(decoding: rest[start.upperBound..<nameEnd.lowerBound], as: UTF8.self)
            guard let end = rest[nameEnd.upperBound...].range(of: Data("-----END \(name)-----".utf8)) else {
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
                guard let certificate = SecCertificateCreateWithData(nil, secure.withUnsafeBytes { Data($0) } as CFData)
                else { throw KeychainError(.decode, "a CERTIFICATE block is not a DER certificate") }
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
        var imported = ImportedItems()
        for entry in entries {
            var items: [[String: Any]] = []
            switch entry {
            case .certificate(let certificate):
                var item: [String: Any] = [
                    kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                ]
                if let label { item[kSecAttrLabel as String] = label }
                items.append(item)
            case .key(let key):
                items.append(keyItem(key))
                let isPrivate = key.attributeText(kSecAttrKeyClass) == kSecAttrKeyClassPrivate as String
                if isPrivate, let publicKey = SecKeyCopyPublicKey(key) { items.append(keyItem(publicKey)) }
            }
            for item in items {
                let status = imported.add(item)
                guard status == errSecSuccess else { return imported.undo("SecItemAdd", status, context) }
            }
        }
        return imported.report(context)
    }

    private func keyItem(_ key: SecKey) -> [String: Any] {
        var item: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueRef as String: key]
        if let tag { item[kSecAttrApplicationTag as String] = Data(tag.utf8) }
        if let label { item[kSecAttrLabel as String] = label }
        return item
    }

    /// A `SecKey` from a standard DER key, through Apple's external representation of it.
    private static func key(der: SecureBytes, isPrivate: Bool) -> SecKey? {
        guard let parsed = try? AsymmetricKey.standardDER(der, isPrivate: isPrivate) else { return nil }
        var bytes: Data
        if isPrivate {
            guard let representation = try? parsed.privateRepresentation() else { return nil }
            bytes = representation.withUnsafeBytes { Data($0) }
        } else {
            guard let representation = try? parsed.publicRepresentation() else { return nil }
            bytes = Data(representation)
        }
        defer { bytes.resetBytes(in: 0..<bytes.count) }
        let type: CFString
        if case .rsa = parsed.kind { type = kSecAttrKeyTypeRSA } else { type = kSecAttrKeyTypeECSECPrimeRandom }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: type,
            kSecAttrKeyClass as String: isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic,
        ]
        return SecKeyCreateWithData(bytes as CFData, attributes as CFDictionary, nil)
    }
}
