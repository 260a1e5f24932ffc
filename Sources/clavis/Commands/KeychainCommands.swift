import ClavisClient
import ClavisCore

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
        let keychain: KeychainClient
        var items: [Item] = []
        do throws(KeychainError) {
            keychain = try KeychainClient()
            for itemClass in [ItemClass.genericPassword, .internetPassword, .key, .certificate] {
                items += try keychain.find(ItemQuery(itemClass: itemClass, synchronizable: .any))
            }
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        var firstFailure: KeychainError?
        var shown: [(item: Item, secret: SecureBytes?)] = []
        for item in items {
            guard showSecrets, item.itemClass == .genericPassword || item.itemClass == .internetPassword else {
                shown.append((item, nil))
                continue
            }
            do throws(KeychainError) {
                shown.append((item, try Self.secret(of: item, keychain)))
            } catch {
                firstFailure = firstFailure ?? error
                Console.error(
                    "clavis: dump-keychain: the secret of \(Self.name(of: item)) is not shown: \(error.code.message)")
                shown.append((item, nil))
            }
        }
        if context.json {
            Console.out(
                ItemFormatter.jsonText(.array(shown.map { ItemFormatter.jsonObject($0.item, secret: $0.secret) })))
        } else {
            for (item, secret) in shown {
                var block = context.formatter.block(item)
                if let secret { block += "\ndata:\n" + secret.withUnsafeBytes { ItemFormatter.quotedValue($0) } }
                Console.out(block)
            }
        }
        return firstFailure.map(ExitStatus.forFailure) ?? ExitStatus.success
    }

    /// Reads one item's secret by its persistent reference, asking for what its access control needs.
    private static func secret(of item: Item, _ keychain: KeychainClient) throws(KeychainError) -> SecureBytes {
        let query = ItemQuery(
            itemClass: item.itemClass, synchronizable: .any, persistentReference: item.persistentReference,
            limit: .one, returnsSecret: true)
        let found = try keychain.find(
            query, authentication: CallAuthentication(reason: "Show the secret of \(name(of: item))"))
        guard let secret = found.first?.secret else {
            throw KeychainError(.itemNotFound, "the item was deleted meanwhile")
        }
        return secret
    }

    /// How an item is named in a prompt or a message: its label, else its account and service (or server), each
    /// escaped for the terminal.
    private static func name(of item: Item) -> String {
        func quoted(_ key: AttributeKey) -> String? {
            item.attributes[key]?.stringValue.flatMap { $0.isEmpty ? nil : "\"\(ItemFormatter.printable($0))\"" }
        }
        if let label = quoted(.label) { return label }
        let place = quoted(.service) ?? quoted(.server) ?? "\"\""
        return "\(quoted(.account) ?? "\"\"") at \(place)"
    }
}

/// `unlock-keychain`: checks the passcode and unlocks the keychain for this process.
struct UnlockKeychainCommand: RunnableCommand {
    var passcode: SecretSource

    static let descriptor = CommandDescriptor(
        name: "unlock-keychain", summary: "Unlock the keychain with its passcode (prompted when -p is left off).",
        options: [
            OptionSpec(flag: "-p", valueName: "passcode", help: "the passcode (not recommended: visible to ps)"),
            SecretSource.framedOption,
        ],
        usesItems: false
    ) { (parsed) throws(UsageError) in
        var source = SecretSource(parsed, flag: "-p")
        source.prompted = source.value == nil
        source.framed = parsed.has(SecretSource.framedOption.flag)
        return UnlockKeychainCommand(passcode: source)
    }

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            let keychain = try KeychainClient()
            guard try keychain.status().hasPasscode else { return ExitStatus.success }
            guard let secret = passcode.read(prompt: KeychainClient.unlockPrompt) else {
                throw KeychainError(.authFailed, "no passcode was given")
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
            SecretSource.framedOption,
        ],
        usesItems: false
    ) { (parsed) throws(UsageError) in
        var old = SecretSource(parsed, flag: "-o")
        old.prompted = old.value == nil
        var new = SecretSource(parsed, flag: "-p")
        new.prompted = new.value == nil
        old.framed = parsed.has(SecretSource.framedOption.flag)
        new.framed = old.framed
        return SetKeychainPasswordCommand(old: old, new: new)
    }

    func run(_ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            let keychain = try KeychainClient()
            var current: SecureBytes?
            // Length-prefixed input carries the current passcode first, whether the keychain has one or not.
            let framedCurrent = old.framed ? old.read(prompt: "") : nil
            if old.framed && framedCurrent == nil { return ExitStatus.usage }
            if try keychain.status().hasPasscode {
                guard let secret = framedCurrent ?? old.read(prompt: "Old Password: ") else {
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
    var codes: [Int32]

    static let descriptor = CommandDescriptor(
        name: "error", summary: "Show the meaning of keychain status codes (decimal, or hexadecimal with 0x).",
        options: [], operands: "CODE...", usesItems: false
    ) { (parsed) throws(UsageError) in
        guard !parsed.operands.isEmpty else { throw UsageError(message: "error needs at least one code") }
        var codes: [Int32] = []
        for operand in parsed.operands {
            guard let code = parseStatus(operand) else {
                throw UsageError(message: "'\(operand)' is not a status code")
            }
            codes.append(code)
        }
        return ErrorCommand(codes: codes)
    }

    static func parseStatus(_ text: String) -> Int32? {
        if text.lowercased().hasPrefix("0x") {
            return UInt32(text.dropFirst(2), radix: 16).map { Int32(bitPattern: $0) }
        }
        return Int32(text)
    }

    func run(_ context: CommandContext) -> Int32 {
        for code in codes {
            let message = KeychainError.Code(rawValue: code).message
            if context.json {
                Console.out(ItemFormatter.jsonText(["status": .integer(code), "message": .string(message)]))
            } else {
                let hex = String(UInt32(bitPattern: code), radix: 16, uppercase: true)
                Console.out("Error: 0x\(String(repeating: "0", count: 8 - hex.count))\(hex) \(code) \(message)")
            }
        }
        return ExitStatus.success
    }
}
