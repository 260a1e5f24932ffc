import ClavisClient
import ClavisCore
import ClavisSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `sign` and `verify`: a signature over a file with a key pair the keychain keeps, found by tag or label.
struct SignatureCommand: RunnableCommand {
    /// True for `verify`.
    var verifies: Bool
    var key: KeyName
    /// Apple's name of the algorithm (`algid:sign:...`); by default the key type's.
    var algorithm: String?
    var input: String
    /// `sign`: where the signature goes (standard output when absent); `verify`: the signature to check.
    var signature: String?

    /// How a command names a stored key.
    struct KeyName {
        var tag: String?
        var label: String?
    }

    static func descriptor(verifying: Bool) -> CommandDescriptor {
        CommandDescriptor(
            name: verifying ? "verify" : "sign",
            summary: verifying
                ? "Check a signature over a file with a key pair in the keychain (exit 0 when it holds)."
                : "Sign a file with a private key kept in the keychain.",
            options: [
                OptionSpec(flag: "-T", valueName: "tag", help: "the key's application tag"),
                OptionSpec(flag: "-l", valueName: "label", help: "the key's label"),
                OptionSpec(
                    flag: "-a", valueName: "algorithm",
                    help: "ecdsa-sha256 (EC default), rsa-pkcs1-sha256 (RSA default), rsa-pss-sha256, ... or algid:..."),
                OptionSpec(flag: "-i", valueName: "file", help: "the data signed"),
                verifying
                    ? OptionSpec(flag: "-s", valueName: "file", help: "the signature to check")
                    : OptionSpec(flag: "-o", valueName: "file", help: "write the signature there (default: stdout)"),
            ]
        ) { (parsed) throws(UsageError) in
            let key = KeyName(tag: parsed.value("-T"), label: parsed.value("-l"))
            guard key.tag != nil || key.label != nil else { throw UsageError(message: "name the key with -T or -l") }
            guard let input = parsed.value("-i") else { throw UsageError(message: "name the data with -i file") }
            var algorithm: String?
            if let name = parsed.value("-a") {
                guard let known = SignatureAlgorithmName.algorithm(named: name) else {
                    throw UsageError(message: "unknown algorithm '\(name.prefix(40))'")
                }
                algorithm = known
            }
            let signature = parsed.value(verifying ? "-s" : "-o")
            if verifying && signature == nil { throw UsageError(message: "verify needs -s signature-file") }
            return SignatureCommand(
                verifies: verifying, key: key, algorithm: algorithm, input: input, signature: signature)
        }
    }

    func run(_ context: CommandContext) -> Int32 {
        guard let data = FileManager.default.contents(atPath: input) else {
            Console.error("clavis: \(verifies ? "verify" : "sign"): cannot read \(input)")
            return ExitStatus.forFailure(KeychainError(.io, ""))
        }
        let client: KeychainClient
        do throws(KeychainError) {
            client = try KeychainClient()
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        return verifies ? verify(data, client: client, context) : sign(data, client: client, context)
    }

    /// `verify`: the signature file's signature over `data`, checked with the key's public half.
    private func verify(_ data: Data, client: KeychainClient, _ context: CommandContext) -> Int32 {
        guard let signatureFile = signature, let signed = FileManager.default.contents(atPath: signatureFile) else {
            Console.error("clavis: verify: cannot read \(signature ?? "")")
            return ExitStatus.forFailure(KeychainError(.io, ""))
        }
        // The public key item when there is one (no private key is read, so nothing is asked for); else the
        // private key's public half.
        let found: StoredKey
        do throws(KeychainError) {
            var key = try findKey(.publicKey, client)
            if key == nil { key = try findKey(.privateKey, client) }
            guard let key else { throw KeychainError(.itemNotFound, "no key has this tag or label") }
            found = key
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        do throws(KeychainError) {
            try client.verify(Array(signed), over: Array(data), with: found, algorithmName: algorithm)
        } catch {
            return context.fail("SecKeyVerifySignature", error)
        }
        if context.json { Console.out(ItemFormatter.jsonText(["verified": .bool(true)])) }
        return ExitStatus.success
    }

    /// `sign`: `data` signed with the private key, to the output file or standard output.
    private func sign(_ data: Data, client: KeychainClient, _ context: CommandContext) -> Int32 {
        let privateKey: StoredKey
        do throws(KeychainError) {
            guard let found = try findKey(.privateKey, client) else {
                throw KeychainError(.itemNotFound, "no private key has this tag or label")
            }
            privateKey = found
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        let made: [UInt8]
        do throws(KeychainError) {
            made = try client.sign(
                Array(data), with: privateKey, algorithmName: algorithm, authentication: authentication)
        } catch {
            return context.fail("SecKeyCreateSignature", error)
        }
        if let signature {
            guard FileManager.default.createFile(atPath: signature, contents: Data(made)) else {
                Console.error("clavis: sign: cannot write \(signature)")
                return ExitStatus.forFailure(KeychainError(.io, ""))
            }
        } else {
            Self.writeToStandardOutput(made)
        }
        return ExitStatus.success
    }

    /// How finding and using the key ask for what its access control needs.
    private var authentication: CallAuthentication {
        CallAuthentication(reason: verifies ? "Verify a signature" : "Sign \(input)")
    }

    /// The first key of `keyClass` the command names (its secret read, asking for what its access control needs);
    /// nil when there is none.
    private func findKey(_ keyClass: KeyClass, _ client: KeychainClient) throws(KeychainError) -> StoredKey? {
        var attributes: [AttributeKey: AttributeValue] = [.keyClass: .number(keyClass.rawValue)]
        if let tag = key.tag { attributes[.applicationTag] = .data(Data(tag.utf8)) }
        if let label = key.label { attributes[.label] = .string(label) }
        return try client.findKeys(
            ItemQuery(itemClass: .key, attributes: attributes, limit: .one), authentication: authentication
        ).first
    }

    /// Writes `bytes` to standard output as they are.
    private static func writeToStandardOutput(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = DescriptorOutput.writeAll($0, to: STDOUT_FILENO) }
    }
}

/// The short names `sign` and `verify` take for Apple's signature algorithms.
enum SignatureAlgorithmName {
    /// Apple's name of the algorithm `name` stands for: `ecdsa-shaN`, `rsa-pkcs1-shaN`, `rsa-pss-shaN` (messages
    /// hashed with SHA-1, -224, -256, -384 or -512), or one of Apple's own names (`algid:sign:...`).
    static func algorithm(named name: String) -> String? {
        if name.hasPrefix("algid:sign:") { return name }
        let parts = name.split(separator: "-")
        guard let hash = parts.last, hash.hasPrefix("sha"), let bits = Int(hash.dropFirst(3)),
            [1, 224, 256, 384, 512].contains(bits)
        else { return nil }
        let digest = "SHA\(bits)"
        let scheme = parts.dropLast().joined(separator: "-")
        switch scheme {
        case "ecdsa": return "algid:sign:ECDSA:message-X962:\(digest)"
        case "rsa-pkcs1": return "algid:sign:RSA:message-PKCS1v15:\(digest)"
        case "rsa-pss":
            // Apple's names end with the salt length: the digest's, though SHA-224's says 24.
            let saltBytes = [1: 20, 224: 24, 256: 32, 384: 48, 512: 64][bits] ?? 0
            return "algid:sign:RSA:message-PSS:\(digest):\(digest):\(saltBytes)"
        default: return nil
        }
    }
}
