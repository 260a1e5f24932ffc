import ClavisCore
import ClavisCrypto
import Foundation
import Security

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
        let query: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnRef as String: true, kSecReturnAttributes as String: true,
            kSecReturnPersistentRef as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess else { return context.fail("SecItemCopyMatching", status) }
        var matches = (result as? [[String: Any]] ?? []).filter(matches)
        guard !matches.isEmpty else { return context.fail("SecItemCopyMatching", errSecItemNotFound) }
        if !all { matches = [matches[0]] }
        if context.json {
            Console.out(ItemFormatter.jsonText(matches.map(jsonObject)))
            return ExitStatus.success
        }
        for item in matches {
            guard let certificate = Self.certificate(of: item) else { continue }
            let der = SecCertificateCopyData(certificate) as Data
            var lines: [String] = []
            if hashes {
                lines.append("SHA-256 hash: " + ItemFormatter.hex(Data(DigestAlgorithm.sha256.hash(Array(der)))))
                lines.append("SHA-1 hash: " + ItemFormatter.hex(Data(DigestAlgorithm.sha1.hash(Array(der)))))
            }
            if emails {
                for address in Self.emailAddresses(of: certificate) { lines.append("email: \(address)") }
            }
            lines.append(pem ? PublicKeyPEM.block("CERTIFICATE", der) : context.formatter.block(item))
            Console.out(lines.joined(separator: "\n").trimmingCharacters(in: .newlines))
        }
        return ExitStatus.success
    }

    /// True when `item`'s certificate passes `-c` and `-e`.
    private func matches(_ item: [String: Any]) -> Bool {
        guard let certificate = Self.certificate(of: item) else { return false }
        if let name {
            var commonName: CFString?
            _ = SecCertificateCopyCommonName(certificate, &commonName)
            let label = item[kSecAttrLabel as String] as? String
            guard [commonName as String?, label].contains(where: { $0?.contains(name) == true }) else { return false }
        }
        if let email, !Self.emailAddresses(of: certificate).contains(where: { $0.lowercased() == email.lowercased() }) {
            return false
        }
        return true
    }

    private func jsonObject(_ item: [String: Any]) -> [String: Any] {
        var object = ItemFormatter.jsonObject(item, secret: nil)
        if let certificate = Self.certificate(of: item) {
            let der = SecCertificateCopyData(certificate) as Data
            object["sha256"] = ItemFormatter.hex(Data(DigestAlgorithm.sha256.hash(Array(der))))
            object["emailAddresses"] = Self.emailAddresses(of: certificate)
            if pem { object["pem"] = PublicKeyPEM.block("CERTIFICATE", der) }
        }
        return object
    }

    private static func certificate(of item: [String: Any]) -> SecCertificate? {
        guard let object = item[kSecValueRef as String] as AnyObject?,
            CFGetTypeID(object) == SecCertificateGetTypeID()
        else { return nil }
        return (object as! SecCertificate)
    }

    private static func emailAddresses(of certificate: SecCertificate) -> [String] {
        var addresses: CFArray?
        guard SecCertificateCopyEmailAddresses(certificate, &addresses) == errSecSuccess else { return [] }
        return addresses as? [String] ?? []
    }
}
