import ClavisClient
import ClavisCore

/// `import` of a PKCS#12 archive (`.p12`, `.pfx`): the identity it holds is added (its certificate and private key),
/// with the rest of its chain as certificates, as macOS `security import` adds them; all or nothing.
struct ArchiveImport {
    var contents: SecureBytes
    var label: String?

    /// Adds the archive's identity and its chain; a failure removes what was added.
    func add(_ archive: PKCS12Archive, _ context: CommandContext) -> Int32 {
        ImportedItems.importing(context) { (imported) throws(KeychainError) in
            guard let certificate = archive.certificate, let privateKey = archive.privateKey else { return }
            var attributes: [AttributeKey: AttributeValue] = [:]
            if let label { attributes[.label] = .string(label) }
            try imported.addIdentity(certificate: certificate, privateKey: privateKey, attributes: attributes)
            // The leaf came with the identity; the issuers are added unless the keychain has them already.
            for issuer in archive.chain.dropFirst() {
                do throws(KeychainError) {
                    try imported.add(CertificateItemFormat.newItem(for: issuer))
                } catch  where error.code == .duplicateItem {
                    continue
                }
            }
        }
    }
}

extension ArchiveImport {
    /// Opens the archive with the passphrase (`-P`, else asked for) and adds what it holds.
    func run(passphrase: SecretSource, _ context: CommandContext) -> Int32 {
        guard let secret = passphrase.read(prompt: "passphrase for the PKCS#12 archive: ") else {
            return SecretSource.reportMissing("archive passphrase", flag: "-P")
        }
        let archive: PKCS12Archive
        do throws(KeychainError) {
            archive = try PKCS12Archive(der: contents.withUnsafeBytes { Array($0) }, passphrase: secret)
        } catch {
            return context.fail("SecPKCS12Import", error)
        }
        return add(archive, context)
    }
}
