import ClavisClient
import ClavisCore
import ClavisCrypto

/// `find-identity`: the caller's identities (a certificate with its private key), and which of them are valid for a
/// policy, as macOS `security find-identity` lists them: the certificate's SHA-1 hash and its common name.
struct FindIdentityCommand: RunnableCommand {
    var policy: String
    var policyString: String?
    var validOnly: Bool

    static let policies = ["basic", "ssl-server", "ssl-client"]

    static let descriptor = CommandDescriptor(
        name: "find-identity", summary: "List identities (certificates with their private keys) and the valid ones.",
        options: [
            OptionSpec(flag: "-p", valueName: "policy", help: "basic (default), ssl-server or ssl-client"),
            OptionSpec(flag: "-s", valueName: "string", help: "the policy's string: the host name for ssl-server"),
            OptionSpec(flag: "-v", help: "show valid identities only"),
        ]
    ) { (parsed) throws(UsageError) in
        let policy = parsed.value("-p") ?? "basic"
        guard policies.contains(policy) else {
            throw UsageError(message: "-p takes \(policies.joined(separator: ", ")), not '\(policy.prefix(16))'")
        }
        return FindIdentityCommand(policy: policy, policyString: parsed.value("-s"), validOnly: parsed.has("-v"))
    }

    /// One identity as listed.
    struct Listed {
        var hash: String
        var name: String
        var isValid: Bool
    }

    func run(_ context: CommandContext) -> Int32 {
        let client: KeychainClient
        let identities: [Identity]
        do throws(KeychainError) {
            client = try KeychainClient()
            identities = try client.findIdentities()
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        let issuers = Self.storedCertificates(client)
        var listed: [Listed] = []
        for identity in identities where identity.privateKey != nil {
            guard let certificate = identity.certificate?.certificate else { continue }
            listed.append(
                Listed(
                    hash: ItemFormatter.hex(DigestAlgorithm.sha1.hash(certificate.der)),
                    name: certificate.commonNames.last ?? "", isValid: isValid(certificate, issuers: issuers)))
        }
        if context.json {
            Console.out(
                ItemFormatter.jsonText(
                    .array(
                        listed.filter { !validOnly || $0.isValid }.map {
                            ["sha1": .string($0.hash), "commonName": .string($0.name), "valid": .bool($0.isValid)]
                        })))
            return ExitStatus.success
        }
        var lines = ["Policy: \(policyTitle)"]
        if !validOnly { lines += section("Matching identities", listed, suffix: "identities found") }
        if !validOnly { lines.append("") }
        lines += section("Valid identities only", listed.filter(\.isValid), suffix: "valid identities found")
        Console.out(lines.joined(separator: "\n"))
        return ExitStatus.success
    }

    private var policyTitle: String {
        switch policy {
        case "ssl-server": "SSL (server)"
        case "ssl-client": "SSL (client)"
        default: "X.509 Basic"
        }
    }

    private func section(_ title: String, _ identities: [Listed], suffix: String) -> [String] {
        var lines = ["  \(title)"]
        for (index, identity) in identities.enumerated() {
            lines.append("  \(index + 1)) \(identity.hash) \"\(ItemFormatter.printable(identity.name))\"")
        }
        lines.append("     \(identities.count) \(suffix)")
        return lines
    }

    /// True when the certificate chains, through the stored certificates, to a root the system trusts
    /// (`/etc/ssl/certs`) and passes the policy now.
    private func isValid(_ certificate: X509Certificate, issuers: [X509Certificate]) -> Bool {
        let trustPolicy: TrustPolicy =
            switch policy {
            case "ssl-server": .ssl(server: true, hostname: policyString)
            case "ssl-client": .ssl(server: false, hostname: nil)
            default: .basicX509
            }
        let chain = [certificate] + issuers.filter { $0.der != certificate.der }
        return CertificateTrust(certificates: chain, policies: [trustPolicy]).evaluate().isTrusted
    }

    /// Every certificate the caller holds, as intermediates for the identities' chains.
    private static func storedCertificates(_ client: KeychainClient) -> [X509Certificate] {
        ((try? client.findCertificates()) ?? []).map(\.certificate)
    }
}
