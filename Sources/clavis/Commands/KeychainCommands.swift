import ClavisClient
import ClavisCore
import Security

/// `dump-keychain`: every item this process's entitlements see (passwords, keys, certificates); with `-d`, the
/// passwords' secrets too (never a key's private bytes).
struct DumpKeychainCommand: RunnableCommand {
    /// `-d`: also print each item's secret (each read is guarded by the item's access control, as a find is).
    var showSecrets: Bool

    static let descriptor = CommandDescriptor(
        name: "dump-keychain", summary: "List every item (attributes; with -d, passwords' secrets as well).",
        options: [
            OptionSpec(flag: "-d", help: "dump each password's secret too (asks where an item needs it; never keys')")
        ]
    ) { (parsed) throws(UsageError) in DumpKeychainCommand(showSecrets: parsed.has("-d")) }

    func run(_ context: CommandContext) -> Int32 {
        var items: [[String: Any]] = []
        for itemClass in [kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate] {
            let query: [String: Any] = [
                kSecClass as String: itemClass, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true,
                kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
            ]
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { continue }
            guard status == errSecSuccess else { return context.fail("SecItemCopyMatching", status) }
            items += result as? [[String: Any]] ?? []
        }
        var firstFailure: OSStatus?
        var shown: [(item: [String: Any], secret: Data?)] = []
        for item in items {
            let isPassword = [kSecClassGenericPassword, kSecClassInternetPassword].contains {
                item[kSecClass as String] as? String == $0 as String
            }
            guard showSecrets, isPassword else {
                shown.append((item, nil))
                continue
            }
            let (status, secret) = Self.secret(of: item)
            if status != errSecSuccess {
                firstFailure = firstFailure ?? status
                let message = SecCopyErrorMessageString(status, nil) as String? ?? "status \(status)"
                Console.error("clavis: dump-keychain: the secret of \(Self.name(of: item)) is not shown: \(message)")
            }
            shown.append((item, secret))
        }
        if context.json {
            Console.out(ItemFormatter.jsonText(shown.map { ItemFormatter.jsonObject($0.item, secret: $0.secret) }))
        } else {
            for (item, secret) in shown {
                var block = context.formatter.block(item)
                if let secret { block += "\ndata:\n" + ItemFormatter.quotedValue(secret) }
                Console.out(block)
            }
        }
        return firstFailure.map(ExitStatus.forStatus) ?? ExitStatus.success
    }

    /// Reads one item's secret by its persistent reference, asking for what its access control needs.
    private static func secret(of item: [String: Any]) -> (OSStatus, Data?) {
        guard let reference = item[kSecValuePersistentRef as String] as? Data else { return (errSecItemNotFound, nil) }
        let query: [String: Any] = [
            kSecClass as String: item[kSecClass as String] ?? kSecClassGenericPassword,
            kSecValuePersistentRef as String: reference, kSecReturnData as String: true,
            kSecUseOperationPrompt as String: "Show the secret of \(name(of: item))",
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, status == errSecSuccess ? result as? Data ?? Data() : nil)
    }

    /// How an item is named in a prompt or a message: its label, else its account and service (or server), each
    /// escaped for the terminal.
    private static func name(of item: [String: Any]) -> String {
        func quoted(_ key: CFString) -> String? {
            (item[key as String] as? String).flatMap { $0.isEmpty ? nil : "\"\(ItemFormatter.printable($0))\"" }
        }
        if let label = quoted(kSecAttrLabel) { return label }
        let place = quoted(kSecAttrService) ?? quoted(kSecAttrServer) ?? "\"\""
        return "\(quoted(kSecAttrAccount) ?? "\"\"") at \(place)"
    }
}

/// `unlock-keychain`: checks the passcode and unlocks the keychain for this process.
struct UnlockKeychainCommand: RunnableCommand {
    var passcode: SecretSource

    static let descriptor = CommandDescriptor(
        name: "unlock-keychain", summary: "Unlock the keychain with its passcode (prompted when -p is left off).",
        options: [OptionSpec(flag: "-p", valueName: "passcode", help: "the passcode (not recommended: visible to ps)")],
        usesItems: false
    ) { (parsed) throws(UsageError) in
        var source = SecretSource(parsed, flag: "-p")
        source.prompted = source.value == nil
        return UnlockKeychainCommand(passcode: source)
    }

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            let keychain = try KeychainClient()
            guard try keychain.status().hasPasscode else { return ExitStatus.success }
            guard let secret = passcode.read(prompt: "password to unlock keychain: ") else {
                return context.fail("SecKeychainUnlock", errSecAuthFailed)
            }
            try keychain.unlock(passcode: secret)
            return ExitStatus.success
        } catch {
            return context.fail("SecKeychainUnlock", error)
        }
    }
}

/// `lock-keychain`: locks the keychain (in the embedded mode, for the rest of this process).
struct LockKeychainCommand: RunnableCommand {
    static let descriptor = CommandDescriptor(
        name: "lock-keychain", summary: "Lock the keychain.", options: [], usesItems: false
    ) { (_) throws(UsageError) in LockKeychainCommand() }

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            try KeychainClient().lock()
            return ExitStatus.success
        } catch {
            return context.fail("SecKeychainLock", error)
        }
    }
}

/// `set-keychain-password`: sets, changes or (with an empty new passcode) removes the passcode.
struct SetKeychainPasswordCommand: RunnableCommand {
    var old: SecretSource
    var new: SecretSource

    static let descriptor = CommandDescriptor(
        name: "set-keychain-password",
        summary:
            "Set, change or (with an empty new passcode) remove the keychain passcode; prompts for those left off.",
        options: [
            OptionSpec(flag: "-o", valueName: "oldPassword", help: "the current passcode"),
            OptionSpec(flag: "-p", valueName: "newPassword", help: "the new passcode; empty removes it"),
        ],
        usesItems: false
    ) { (parsed) throws(UsageError) in
        var old = SecretSource(parsed, flag: "-o")
        old.prompted = old.value == nil
        var new = SecretSource(parsed, flag: "-p")
        new.prompted = new.value == nil
        return SetKeychainPasswordCommand(old: old, new: new)
    }

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            let keychain = try KeychainClient()
            var current: SecureBytes?
            if try keychain.status().hasPasscode {
                guard let secret = old.read(prompt: "Old Password: ") else {
                    return SecretSource.reportMissing("current passcode", flag: "-o")
                }
                current = secret
            }
            guard let secret = new.read(prompt: "New Password: ", confirming: true) else {
                return SecretSource.reportMissing("new passcode", flag: "-p (empty removes the passcode)")
            }
            try keychain.setPasscode(secret.isEmpty ? nil : secret, current: current)
            return ExitStatus.success
        } catch {
            return context.fail("SecKeychainChangePassword", error)
        }
    }
}

/// `error CODE...`: Apple's message for each status code.
struct ErrorCommand: RunnableCommand {
    var codes: [OSStatus]

    static let descriptor = CommandDescriptor(
        name: "error", summary: "Show the meaning of keychain status codes (decimal, or hexadecimal with 0x).",
        options: [], operands: "CODE...", usesItems: false
    ) { (parsed) throws(UsageError) in
        guard !parsed.operands.isEmpty else { throw UsageError(message: "error needs at least one code") }
        var codes: [OSStatus] = []
        for operand in parsed.operands {
            guard let code = parseStatus(operand) else {
                throw UsageError(message: "'\(operand)' is not a status code")
            }
            codes.append(code)
        }
        return ErrorCommand(codes: codes)
    }

    static func parseStatus(_ text: String) -> OSStatus? {
        if text.lowercased().hasPrefix("0x") {
            return UInt32(text.dropFirst(2), radix: 16).map { OSStatus(bitPattern: $0) }
        }
        return OSStatus(text)
    }

    func run(_ context: CommandContext) -> Int32 {
        for code in codes {
            let message = SecCopyErrorMessageString(code, nil) as String? ?? ""
            if context.json {
                Console.out(ItemFormatter.jsonText(["status": Int(code), "message": message]))
            } else {
                let hex = String(UInt32(bitPattern: code), radix: 16, uppercase: true)
                Console.out("Error: 0x\(String(repeating: "0", count: 8 - hex.count))\(hex) \(code) \(message)")
            }
        }
        return ExitStatus.success
    }
}
