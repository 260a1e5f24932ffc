import ClavisCore
import Foundation
import Security

/// `import` of a PKCS#12 archive (`.p12`, `.pfx`): each identity it holds is added (its certificate and private key),
/// with the rest of its chain as certificates, as macOS `security import` adds them; all or nothing.
struct ArchiveImport {
    var contents: SecureBytes
    var label: String?

    /// The archive's identities and chains, opened with `passphrase`; `errSecDecode` when it is no archive,
    /// `errSecAuthFailed` for a wrong passphrase.
    func open(passphrase: SecureBytes) -> (OSStatus, [[String: Any]]) {
        let text = String(decoding: passphrase.withUnsafeBytes { Array($0) }, as: UTF8.self)
        var items: CFArray?
        let status = contents.withUnsafeBytes { raw in
            SecPKCS12Import(Data(raw) as CFData, [kSecImportExportPassphrase as String: text] as CFDictionary, &items)
        }
        return (status, items as? [[String: Any]] ?? [])
    }

    /// Adds the identities and their chains; a failure removes what was added.
    func add(_ items: [[String: Any]], _ context: CommandContext) -> Int32 {
        var imported = ImportedItems()
        for item in items {
            guard let identity = item[kSecImportItemIdentity as String] else { continue }
            var attributes: [String: Any] = [kSecValueRef as String: identity]
            if let label { attributes[kSecAttrLabel as String] = label }
            let status = imported.add(attributes)
            guard status == errSecSuccess else { return imported.undo("SecItemAdd", status, context) }
            // The leaf came with the identity; the issuers are added unless the keychain has them already.
            for certificate in (item[kSecImportItemCertChain as String] as? [AnyObject] ?? []).dropFirst() {
                let status = imported.add([
                    kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                ])
                guard status == errSecSuccess || status == errSecDuplicateItem else {
                    return imported.undo("SecItemAdd", status, context)
                }
            }
        }
        return imported.report(context)
    }
}

extension ArchiveImport {
    /// Opens the archive with the passphrase (`-P`, else asked for) and adds what it holds.
    func run(passphrase: SecretSource, _ context: CommandContext) -> Int32 {
        guard let secret = passphrase.read(prompt: "passphrase for the PKCS#12 archive: ") else {
            return SecretSource.reportMissing("archive passphrase", flag: "-P")
        }
        let (status, items) = open(passphrase: secret)
        guard status == errSecSuccess else { return context.fail("SecPKCS12Import", status) }
        return add(items, context)
    }
}
