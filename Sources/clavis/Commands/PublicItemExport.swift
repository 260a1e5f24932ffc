import ClavisClient
import ClavisCore
import FoundationEssentials

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
        var blocks: [String] = []
        do throws(KeychainError) {
            let client = try KeychainClient()
            // Public key items only: a private key would be read from its secret (and might ask for
            // authentication), and `generate-key` and `SecKeyCreateRandomKey` store the pair.
            var query = ItemQuery(itemClass: kind == .certificates ? .certificate : .key, returnsSecret: true)
            if kind == .publicKeys { query.attributes[.keyClass] = .number(KeyClass.publicKey.rawValue) }
            let items = try client.find(query)
            guard !items.isEmpty else { throw KeychainError(.itemNotFound, "no \(query.itemClass.rawValue) item") }
            if kind == .certificates {
                blocks = items.compactMap(StoredCertificate.init).map {
                    PEM.block("CERTIFICATE", Data($0.certificate.der))
                }
            } else {
                var seen: Set<[UInt8]> = []
                for key in items.compactMap(StoredKey.init) {
                    // The same public key stored twice (two tags) is written once.
                    guard let publicKey = try? key.publicKey(),
                        let bytes = try? KeyItemFormat.publicRepresentation(of: publicKey),
                        seen.insert(bytes).inserted, let text = try? PublicKeyInfo.pem(of: publicKey)
                    else { continue }
                    blocks.append(text)
                }
            }
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        guard !blocks.isEmpty else { return context.fail("SecItemExport", KeychainError(.itemNotFound, "")) }
        do throws(KeychainError) {
            try file.save(Data(blocks.joined().utf8), replacing: replacing)
        } catch {
            return context.fail("SecItemExport", error)
        }
        if context.json {
            Console.out(ItemFormatter.jsonText(["exported": .integer(blocks.count)]))
        } else {
            Console.out(
                "exported \(blocks.count) \(kind == .certificates ? "certificates" : "public keys") to \(file.path)")
        }
        return ExitStatus.success
    }
}
