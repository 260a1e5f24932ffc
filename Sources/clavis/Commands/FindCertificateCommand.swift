import ClavisClient
import ClavisCore
import ClavisCrypto
import FoundationEssentials

/// `find-certificate`: the caller's certificates whose common name (or label) contains `-c` and whose email
/// addresses include `-e`, as macOS `security find-certificate` shows them.
struct FindCertificateCommand: RunnableCommand {
    var name: String?
    var email: String?
    var all: Bool
    var pem: Bool
    var hashes: Bool
    var emails: Bool

    static let descriptor = CommandDescriptor(
        name: "find-certificate", summary: "Find certificates by name or email address.",
        options: [
            OptionSpec(flag: "-a", help: "find all matching certificates, not just the first"),
            OptionSpec(
                flag: "-c", valueName: "name", help: "match certificates whose common name or label contains NAME"),
            OptionSpec(flag: "-e", valueName: "email", help: "match certificates with this email address"),
            OptionSpec(flag: "-m", help: "show each certificate's email addresses"),
            OptionSpec(flag: "-p", help: "print each certificate as PEM instead of its attributes"),
            OptionSpec(flag: "-Z", help: "print each certificate's SHA-256 and SHA-1 hashes"),
        ]
    ) { (parsed) throws(UsageError) in
        FindCertificateCommand(
            name: parsed.value("-c"), email: parsed.value("-e"), all: parsed.has("-a"), pem: parsed.has("-p"),
            hashes: parsed.has("-Z"), emails: parsed.has("-m"))
    }

    func run(_ context: CommandContext) -> Int32 {
        var matches: [(item: Item, certificate: X509Certificate)]
        do throws(KeychainError) {
            matches = try KeychainClient().findCertificates().map { (item: $0.item, certificate: $0.certificate) }
                .filter { self.matches($0) }
            guard !matches.isEmpty else {
                throw KeychainError(.itemNotFound, "no certificate matches")
            }
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        if !all { matches = [matches[0]] }
        if context.json {
            Console.out(ItemFormatter.jsonText(.array(matches.map(jsonObject))))
            return ExitStatus.success
        }
        for (item, certificate) in matches {
            var lines: [String] = []
            if hashes {
                lines.append("SHA-256 hash: " + ItemFormatter.hex(DigestAlgorithm.sha256.hash(certificate.der)))
                lines.append("SHA-1 hash: " + ItemFormatter.hex(DigestAlgorithm.sha1.hash(certificate.der)))
            }
            if emails {
                for address in certificate.emailAddresses { lines.append("email: \(address)") }
            }
            lines.append(pem ? PEM.block("CERTIFICATE", Data(certificate.der)) : context.formatter.block(item))
            var text = lines.joined(separator: "\n")
            while text.hasSuffix("\n") { text.removeLast() }
            Console.out(text)
        }
        return ExitStatus.success
    }

    /// True when the certificate passes `-c` (its common name or the item's label) and `-e`.
    private func matches(_ match: (item: Item, certificate: X509Certificate)) -> Bool {
        if let name {
            let label = match.item.attributes[.label]?.stringValue
            guard [match.certificate.commonNames.last, label].contains(where: { $0?.contains(name) == true }) else {
                return false
            }
        }
        if let email,
            !match.certificate.emailAddresses.contains(where: { $0.lowercased() == email.lowercased() })
        {
            return false
        }
        return true
    }

    private func jsonObject(_ match: (item: Item, certificate: X509Certificate)) -> JSONValue {
        guard case .object(var object) = ItemFormatter.jsonObject(match.item, secret: nil) else { return .null }
        let der = match.certificate.der
        object["sha256"] = .string(ItemFormatter.hex(DigestAlgorithm.sha256.hash(der)))
        object["emailAddresses"] = .array(match.certificate.emailAddresses.map { .string($0) })
        if pem { object["pem"] = .string(PEM.block("CERTIFICATE", Data(der))) }
        return .object(object)
    }
}
