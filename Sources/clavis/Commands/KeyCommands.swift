import ClavisClient
import ClavisCore
import FoundationEssentials

/// `generate-key`: a new EC or RSA key pair kept in the keychain (its private key never printed); the public key
/// comes out as PEM, as `openssl` reads it.
struct GenerateKeyCommand: RunnableCommand {
    var keyType: KeyType
    var bits: Int
    var label: String?
    var tag: String?
    var accessGroup: String?
    var output: String?

    static let descriptor = CommandDescriptor(
        name: "generate-key",
        summary: "Generate a key pair kept in the keychain; print its public key (PEM).",
        options: [
            OptionSpec(flag: "-t", valueName: "type", help: "ec (default) or rsa"),
            OptionSpec(flag: "-s", valueName: "bits", help: "256, 384 or 521 for ec (default 256); 1024-4096 for rsa"),
            OptionSpec(flag: "-l", valueName: "label", help: "the key's label"),
            OptionSpec(flag: "-T", valueName: "tag", help: "the key's application tag, to find it by later"),
            OptionSpec(flag: "-G", valueName: "group", help: "the access group (default: the first the caller holds)"),
            OptionSpec(flag: "-o", valueName: "file", help: "write the public key there instead of printing it"),
        ]
    ) { (parsed) throws(UsageError) in
        let type = parsed.value("-t") ?? "ec"
        let keyType: KeyType
        let defaultBits: Int
        switch type {
        case "ec": (keyType, defaultBits) = (.ellipticCurve, 256)
        case "rsa": (keyType, defaultBits) = (.rsa, 2048)
        default: throw UsageError(message: "-t takes ec or rsa, not '\(type.prefix(16))'")
        }
        var bits = defaultBits
        if let size = parsed.value("-s") {
            guard let given = Int(size), given > 0 else { throw UsageError(message: "-s takes a number of bits") }
            bits = given
        }
        guard parsed.value("-l") != nil || parsed.value("-T") != nil else {
            throw UsageError(message: "generate-key needs -l label or -T tag, to find the key again")
        }
        return GenerateKeyCommand(
            keyType: keyType, bits: bits, label: parsed.value("-l"), tag: parsed.value("-T"),
            accessGroup: parsed.value("-G"), output: parsed.value("-o"))
    }

    func run(_ context: CommandContext) -> Int32 {
        var attributes: [AttributeKey: AttributeValue] = [:]
        if let label { attributes[.label] = .string(label) }
        if let tag { attributes[.applicationTag] = .data(Data(tag.utf8)) }
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        // The public key's file is checked before the key is made (never over an existing file, a link or the
        // keychain's own), and a key whose file cannot be written is removed again.
        let file = output.map { BackupFile(path: $0, keychain: ClavisConfiguration.current.home) }
        do throws(KeychainError) {
            try file?.checkWritable(replacing: false)
        } catch {
            return context.fail("generate-key", error)
        }
        let client: KeychainClient
        let privateKey: StoredKey
        do throws(KeychainError) {
            client = try KeychainClient()
            // The pair is stored as SecKeyCreateRandomKey with kSecAttrIsPermanent stores it: both keys, or none.
            (privateKey, _) = try client.generateKeyPair(
                KeySpecification(type: keyType, bits: bits), privateKeyAttributes: attributes,
                publicKeyAttributes: attributes)
        } catch {
            return context.fail("SecKeyCreateRandomKey", error)
        }
        let applicationLabel = privateKey.item.attributes[.applicationLabel]
        let hash: String
        if case .data(let label) = applicationLabel { hash = ItemFormatter.hex(label) } else { hash = "" }
        let pem: String
        do throws(KeychainError) {
            pem = try PublicKeyInfo.pem(of: privateKey.publicKey())
        } catch {
            return context.fail("SecKeyCopyExternalRepresentation", error)
        }
        if let file {
            do throws(KeychainError) {
                try file.save(Data(pem.utf8), replacing: false)
            } catch {
                if let applicationLabel {
                    _ = try? client.delete(
                        ItemQuery(itemClass: .key, attributes: [.applicationLabel: applicationLabel]))
                }
                return context.fail("generate-key", error)
            }
        }
        if context.json {
            var object: [String: JSONValue] = ["applicationLabel": .string(hash)]
            if output == nil { object["publicKey"] = .string(pem) }
            Console.out(ItemFormatter.jsonText(.object(object)))
        } else if output == nil {
            Console.out(pem.hasSuffix("\n") ? String(pem.dropLast()) : pem)
        }
        return ExitStatus.success
    }
}
