import ClavisCore
import ClavisCrypto
import Foundation
import Security

/// `import` of keys and certificates as other tools write them: PEM blocks (`CERTIFICATE`, `PUBLIC KEY`, `PRIVATE
/// KEY`, `EC PRIVATE KEY`, `RSA PRIVATE KEY`) or one DER certificate or key; each becomes a keychain item.
struct KeyFileImport {
    /// The file's bytes.
    var contents: Data
    /// The tag and label given to the keys imported.
    var tag: String?
    var label: String?

    /// True when `contents` is PEM text or a DER certificate (anything else is taken for a backup).
    static func recognizes(_ contents: Data) -> Bool {
        contents.starts(with: Data("-----BEGIN ".utf8)) || SecCertificateCreateWithData(nil, contents as CFData) != nil
    }

    /// One thing to import.
    enum Entry {
        case certificate(Data)
        case publicKey(Data)
        case privateKey(SecureBytes)
    }

    /// Adds every entry; the first failure ends the import with its status.
    func run(_ context: CommandContext) -> Int32 {
        let entries: [Entry]
        do throws(KeychainError) {
            entries = try self.entries()
        } catch {
            return context.fail("SecItemImport", error)
        }
        var imported = 0
        for entry in entries {
            let (call, status) = add(entry)
            guard status == errSecSuccess else { return context.fail(call, status) }
            imported += 1
        }
        if context.json {
            Console.out(ItemFormatter.jsonText(["imported": imported]))
        } else {
            Console.out("imported \(imported) item\(imported == 1 ? "" : "s")")
        }
        return ExitStatus.success
    }

    /// The entries of the file: its PEM blocks, or its one DER certificate.
    func entries() throws(KeychainError) -> [Entry] {
        guard let text = String(data: contents, encoding: .utf8), text.hasPrefix("-----BEGIN ") else {
            return [.certificate(contents)]
        }
        var entries: [Entry] = []
        var rest = Substring(text)
        while let begin = rest.range(of: "-----BEGIN ") {
            guard let nameEnd = rest[begin.upperBound...].range(of: "-----") else { break }
            let name = String(rest[begin.upperBound..<nameEnd.lowerBound])
            guard let end = rest[nameEnd.upperBound...].range(of: "-----END \(name)-----") else {
                throw KeychainError(.decode, "the PEM block \(name.prefix(32)) has no end line")
            }
            let body = rest[nameEnd.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else {
                throw KeychainError(.decode, "the PEM block \(name.prefix(32)) is not base64")
            }
            switch name {
            case "CERTIFICATE": entries.append(.certificate(der))
            case "PUBLIC KEY": entries.append(.publicKey(der))
            case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY": entries.append(.privateKey(SecureBytes(der)))
            default:
                throw KeychainError(
                    .unimplemented,
                    "PEM blocks of \(name.prefix(32)) are not imported (an encrypted key: decrypt it first)")
            }
            rest = rest[end.upperBound...]
        }
        guard !entries.isEmpty else { throw KeychainError(.decode, "the file holds no PEM block") }
        return entries
    }

    /// Adds one entry; the call that failed and its status.
    private func add(_ entry: Entry) -> (String, OSStatus) {
        var attributes: [String: Any] = [:]
        switch entry {
        case .certificate(let der):
            guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
                return ("SecCertificateCreateWithData", errSecDecode)
            }
            attributes[kSecClass as String] = kSecClassCertificate
            attributes[kSecValueRef as String] = certificate
            if let label { attributes[kSecAttrLabel as String] = label }
        case .publicKey(let der):
            guard let key = Self.key(der: SecureBytes(der), isPrivate: false) else {
                return ("SecKeyCreateWithData", errSecDecode)
            }
            attributes = keyAttributes(key)
        case .privateKey(let der):
            guard let key = Self.key(der: der, isPrivate: true) else { return ("SecKeyCreateWithData", errSecDecode) }
            attributes = keyAttributes(key)
        }
        return ("SecItemAdd", SecItemAdd(attributes as CFDictionary, nil))
    }

    private func keyAttributes(_ key: SecKey) -> [String: Any] {
        var attributes: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueRef as String: key]
        if let tag { attributes[kSecAttrApplicationTag as String] = Data(tag.utf8) }
        if let label { attributes[kSecAttrLabel as String] = label }
        return attributes
    }

    /// A `SecKey` from a standard DER key, through Apple's external representation of it.
    private static func key(der: SecureBytes, isPrivate: Bool) -> SecKey? {
        guard let parsed = try? AsymmetricKey.standardDER(der, isPrivate: isPrivate) else { return nil }
        let bytes: Data
        if isPrivate {
            guard let representation = try? parsed.privateRepresentation() else { return nil }
            bytes = representation.withUnsafeBytes { Data($0) }
        } else {
            guard let representation = try? parsed.publicRepresentation() else { return nil }
            bytes = Data(representation)
        }
        let type: CFString
        if case .rsa = parsed.kind { type = kSecAttrKeyTypeRSA } else { type = kSecAttrKeyTypeECSECPrimeRandom }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: type,
            kSecAttrKeyClass as String: isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic,
        ]
        return SecKeyCreateWithData(bytes as CFData, attributes as CFDictionary, nil)
    }
}
