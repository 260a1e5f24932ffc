import ClavisCore
import Foundation
import Security

/// `export -t certs|pubkeys`: the caller's certificates, or the public halves of its keys, as a sequence of PEM
/// blocks that `openssl` reads. Nothing secret is written, so no passphrase is asked for.
struct PublicItemExport {
    /// What to write.
    enum Kind: String {
        case certificates = "certs"
        case publicKeys = "pubkeys"
    }

    var kind: Kind

    /// Writes the PEM blocks to `file`; `errSecItemNotFound` when there is nothing to export.
    func run(_ context: CommandContext, to file: BackupFile, replacing: Bool) -> Int32 {
        // Public key items only: a private key's reference would be read from its secret (and might ask for
        // authentication), and `generate-key` and `SecKeyCreateRandomKey` store the pair.
        var query: [String: Any] = [kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true]
        query[kSecClass as String] = kind == .certificates ? kSecClassCertificate : kSecClassKey
        if kind == .publicKeys { query[kSecAttrKeyClass as String] = kSecAttrKeyClassPublic }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess else { return context.fail("SecItemCopyMatching", status) }
        var blocks: [String] = []
        var seen: Set<Data> = []
        for object in result as? [AnyObject] ?? [] {
            if kind == .certificates, CFGetTypeID(object) == SecCertificateGetTypeID() {
                let der = SecCertificateCopyData(object as! SecCertificate) as Data
                blocks.append(PublicKeyPEM.block("CERTIFICATE", der))
            } else if kind == .publicKeys, CFGetTypeID(object) == SecKeyGetTypeID(),
                let publicKey = SecKeyCopyPublicKey(object as! SecKey),
                let bytes = SecKeyCopyExternalRepresentation(publicKey, nil) as Data?,
                seen.insert(bytes).inserted,
                let text = PublicKeyPEM.text(of: publicKey)
            {
                // The same public key stored twice (two tags) is written once.
                blocks.append(text)
            }
        }
        guard !blocks.isEmpty else { return context.fail("SecItemExport", errSecItemNotFound) }
        do throws(KeychainError) {
            try file.save(Data(blocks.joined().utf8), replacing: replacing)
        } catch {
            return context.fail("SecItemExport", error)
        }
        if context.json {
            Console.out(ItemFormatter.jsonText(["exported": blocks.count]))
        } else {
            Console.out(
                "exported \(blocks.count) \(kind == .certificates ? "certificates" : "public keys") to \(file.path)")
        }
        return ExitStatus.success
    }
}
