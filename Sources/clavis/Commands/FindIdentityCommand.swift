import ClavisCore
import ClavisCrypto
import Foundation
import Security

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
        let query: [String: Any] = [
            kSecClass as String: kSecClassIdentity, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            return context.fail("SecItemCopyMatching", status)
        }
        let issuers = Self.storedCertificates()
        var listed: [Listed] = []
        for object in result as? [AnyObject] ?? [] where CFGetTypeID(object) == SecIdentityGetTypeID() {
            var certificate: SecCertificate?
            guard SecIdentityCopyCertificate(object as! SecIdentity, &certificate) == errSecSuccess, let certificate
            else { continue }
            let der = Array(SecCertificateCopyData(certificate) as Data)
            var commonName: CFString?
            _ = SecCertificateCopyCommonName(certificate, &commonName)
            listed.append(
                Listed(
                    hash: ItemFormatter.hex(Data(DigestAlgorithm.sha1.hash(der))),
                    name: (commonName as String?) ?? "", isValid: isValid(certificate, issuers: issuers)))
        }
        if context.json {
            Console.out(
                ItemFormatter.jsonText(
                    listed.filter { !validOnly || $0.isValid }.map {
                        ["sha1": $0.hash, "commonName": $0.name, "valid": $0.isValid] as [String: Any]
                    }))
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
    private func isValid(_ certificate: SecCertificate, issuers: [SecCertificate]) -> Bool {
        let secPolicy: SecPolicy =
            switch policy {
            case "ssl-server": SecPolicyCreateSSL(true, policyString.map { $0 as CFString })
            case "ssl-client": SecPolicyCreateSSL(false, nil)
            default: SecPolicyCreateBasicX509()
            }
        var trust: SecTrust?
        let chain = [certificate] + issuers.filter { $0 != certificate }
        guard SecTrustCreateWithCertificates(chain as CFArray, secPolicy, &trust) == errSecSuccess, let trust else {
            return false
        }
        return SecTrustEvaluateWithError(trust, nil)
    }

    /// Every certificate the caller holds, as intermediates for the identities' chains.
    private static func storedCertificates() -> [SecCertificate] {
        let query: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return [] }
        return (result as? [AnyObject] ?? []).compactMap { object in
            CFGetTypeID(object) == SecCertificateGetTypeID() ? (object as! SecCertificate) : nil
        }
    }
}
