import ClavisCore
import Foundation
import Security

/// `sign` and `verify`: a signature over a file with a key pair the keychain keeps, found by tag or label.
struct SignatureCommand: RunnableCommand {
    /// True for `verify`.
    var verifies: Bool
    var key: KeyName
    var algorithm: SecKeyAlgorithm?
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
            var algorithm: SecKeyAlgorithm?
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
        let call = verifies ? "SecKeyVerifySignature" : "SecKeyCreateSignature"
        guard let data = FileManager.default.contents(atPath: input) else {
            Console.error("clavis: \(verifies ? "verify" : "sign"): cannot read \(input)")
            return ExitStatus.forStatus(errSecIO)
        }
        var error: Unmanaged<CFError>?
        if verifies {
            guard let signatureFile = signature, let signed = FileManager.default.contents(atPath: signatureFile) else {
                Console.error("clavis: verify: cannot read \(signature ?? "")")
                return ExitStatus.forStatus(errSecIO)
            }
            // The public key item when there is one (no private key is read, so nothing is asked for); else the
            // private key's public half.
            var (status, found) = findKey(kSecAttrKeyClassPublic)
            if found == nil, status == errSecItemNotFound { (status, found) = findKey(kSecAttrKeyClassPrivate) }
            guard let found, let publicKey = SecKeyCopyPublicKey(found) else {
                return context.fail("SecItemCopyMatching", status == errSecSuccess ? errSecItemNotFound : status)
            }
            let chosen = algorithm ?? SignatureAlgorithmName.defaultAlgorithm(for: publicKey)
            guard SecKeyVerifySignature(publicKey, chosen, data as CFData, signed as CFData, &error) else {
                return context.fail(call, KeyFailure.status(of: error))
            }
            if context.json { Console.out(ItemFormatter.jsonText(["verified": true])) }
            return ExitStatus.success
        }
        let (status, privateKey) = findKey(kSecAttrKeyClassPrivate)
        guard let privateKey else { return context.fail("SecItemCopyMatching", status) }
        let chosen = algorithm ?? SignatureAlgorithmName.defaultAlgorithm(for: privateKey)
        guard let made = SecKeyCreateSignature(privateKey, chosen, data as CFData, &error) as Data? else {
            return context.fail(call, KeyFailure.status(of: error))
        }
        if let signature {
            guard FileManager.default.createFile(atPath: signature, contents: made) else {
                Console.error("clavis: sign: cannot write \(signature)")
                return ExitStatus.forStatus(errSecIO)
            }
        } else {
            FileHandle.standardOutput.write(made)
        }
        return ExitStatus.success
    }

    /// The key of `keyClass` the command names, asking for what its access control needs.
    private func findKey(_ keyClass: CFString) -> (OSStatus, SecKey?) {
        var query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: keyClass,
            kSecReturnRef as String: true,
            kSecUseOperationPrompt as String: verifies ? "Verify a signature" : "Sign \(input)",
        ]
        if let tag = key.tag { query[kSecAttrApplicationTag as String] = Data(tag.utf8) }
        if let label = key.label { query[kSecAttrLabel as String] = label }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let found = result, CFGetTypeID(found) == SecKeyGetTypeID() else {
            return (status == errSecSuccess ? errSecItemNotFound : status, nil)
        }
        return (status, (found as! SecKey))
    }
}

/// The short names `sign` and `verify` take for Apple's signature algorithms.
enum SignatureAlgorithmName {
    /// The algorithm `name` stands for: `ecdsa-shaN`, `rsa-pkcs1-shaN`, `rsa-pss-shaN` (messages hashed with SHA-1,
    /// -224, -256, -384 or -512), or one of Apple's own names (`algid:sign:...`).
    static func algorithm(named name: String) -> SecKeyAlgorithm? {
        if name.hasPrefix("algid:sign:") { return SecKeyAlgorithm(rawValue: name as CFString) }
        let parts = name.split(separator: "-")
        guard let hash = parts.last, hash.hasPrefix("sha"), let bits = Int(hash.dropFirst(3)),
            [1, 224, 256, 384, 512].contains(bits)
        else { return nil }
        let digest = "SHA\(bits)"
        let scheme = parts.dropLast().joined(separator: "-")
        let raw: String
        switch scheme {
        case "ecdsa": raw = "algid:sign:ECDSA:message-X962:\(digest)"
        case "rsa-pkcs1": raw = "algid:sign:RSA:message-PKCS1v15:\(digest)"
        case "rsa-pss":
            // Apple's names end with the salt length: the digest's, though SHA-224's says 24.
            let saltBytes = [1: 20, 224: 24, 256: 32, 384: 48, 512: 64][bits] ?? 0
            raw = "algid:sign:RSA:message-PSS:\(digest):\(digest):\(saltBytes)"
        default: return nil
        }
        return SecKeyAlgorithm(rawValue: raw as CFString)
    }

    /// ECDSA over SHA-256 for an EC key, PKCS#1 v1.5 over SHA-256 for an RSA key.
    static func defaultAlgorithm(for key: SecKey) -> SecKeyAlgorithm {
        return key.attributeText(kSecAttrKeyType) == kSecAttrKeyTypeRSA as String
            ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
    }
}
