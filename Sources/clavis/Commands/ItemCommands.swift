import ClavisClient
import ClavisCore
import Security

/// `add-generic-password` and `add-internet-password`.
struct AddPasswordCommand: RunnableCommand {
    var kind: PasswordKind
    var attributes: [String: Any]
    var password: SecretSource
    var updateExisting: Bool

    static func descriptor(_ kind: PasswordKind) -> CommandDescriptor {
        let options =
            kind.attributeOptions.map(\.spec) + [
                PasswordKind.accessGroupOption,
                OptionSpec(
                    flag: "-w", valueName: "password",
                    help: "password to store (visible to other users in ps: prefer a prompt); put -w last to be "
                        + "prompted on a terminal, or to read one line of stdin without its line break; -w - reads "
                        + "all of stdin, byte for byte",
                    valueMayBePrompted: true),
                OptionSpec(flag: "-X", valueName: "hex", help: "password to store, as hexadecimal bytes"),
                OptionSpec(flag: "-U", help: "update the item if it already exists"),
                OptionSpec(
                    flag: "--accessible", valueName: "class",
                    help: "protection class: ak, ck, dk, aku, cku, dku, akpu or Apple's name (default ak)"),
                OptionSpec(
                    flag: "--access-control", valueName: "flags",
                    help: "access control, flags joined by commas: userPresence, biometryAny, biometryCurrentSet, "
                        + "devicePasscode, watch, or, and (e.g. biometryAny,or,devicePasscode)"),
            ]
        return CommandDescriptor(
            name: "add-\(kind.word)-password", summary: "Add \(kind.article) password item.", options: options
        ) { (parsed) throws(UsageError) in
            var attributes = try kind.attributes(from: parsed)
            var protection: String?
            if let text = parsed.value("--accessible") {
                guard let code = AccessControlText.protectionCode(text) else {
                    throw UsageError(message: "--accessible: unknown protection class '\(text)'")
                }
                protection = code
                attributes[kSecAttrAccessible as String] = code
            }
            if let text = parsed.value("--access-control") {
                guard let flags = AccessControlText.flags(text) else {
                    throw UsageError(message: "--access-control: unknown flag in '\(text)'")
                }
                var error: Unmanaged<CFError>?
                guard
                    let access = SecAccessControlCreateWithFlags(
                        nil, (protection ?? (kSecAttrAccessibleWhenUnlocked as String)) as CFString, flags, &error)
                else {
                    error?.release()
                    throw UsageError(message: "--access-control: '\(text)' is not a valid combination")
                }
                attributes[kSecAttrAccessControl as String] = access
            }
            var password = SecretSource(parsed, flag: "-w")
            if let hex = parsed.value("-X") {
                guard password.value == nil && !password.prompted else {
                    throw UsageError(message: "give the password with -w or -X, not both")
                }
                guard let bytes = SecretSource.bytes(fromHex: hex) else {
                    throw UsageError(message: "-X needs an even number of hexadecimal digits")
                }
                password = SecretSource(bytes: bytes)
            }
            return AddPasswordCommand(
                kind: kind, attributes: attributes, password: password, updateExisting: parsed.has("-U"))
        }
    }

    func run(_ context: CommandContext) -> Int32 {
        guard let secret = password.read(prompt: "password data for new item: ", confirming: true) else {
            return SecretSource.reportMissing("password for the new item", flag: "-w or -X")
        }
        // Apple's API takes the secret as CFData.
        let data = Data(secret.unprotectedBytes())
        var query = attributes
        query[kSecClass as String] = kind.itemClass
        query[kSecValueData as String] = data
        let status = SecItemAdd(query as CFDictionary, nil)
        if status == errSecDuplicateItem && updateExisting {
            let group =
                attributes[kSecAttrAccessGroup as String] as? String
                ?? (try? KeychainClient().status().accessGroups.first) ?? ""
            var match = kind.primaryKey(of: attributes, accessGroup: group)
            match[kSecClass as String] = kind.itemClass
            var changes = attributes
            changes.removeValue(forKey: kSecAttrAccessGroup as String)
            changes[kSecValueData as String] = data
            let updated = SecItemUpdate(match as CFDictionary, changes as CFDictionary)
            return updated == errSecSuccess ? succeed(context) : context.fail("SecItemUpdate", updated)
        }
        if status == errSecNotAvailable, let explanation = notAvailableReason() {
            return context.fail("SecItemAdd", KeychainError(.notAvailable, explanation))
        }
        return status == errSecSuccess ? succeed(context) : context.fail("SecItemAdd", status)
    }

    /// Why a passcode-bound add is not available: the keychain has no passcode, or (with one) no biometry is
    /// enrolled for `biometryCurrentSet`.
    private func notAvailableReason() -> String? {
        guard let status = try? KeychainClient().status() else { return nil }
        if !status.hasPasscode {
            return "the keychain has no passcode, which this item's protection needs; set one with "
                + "`clavis set-keychain-password`"
        }
        return attributes[kSecAttrAccessControl as String] != nil
            ? "this item's access control needs biometry, and none is enrolled" : nil
    }

    private func succeed(_ context: CommandContext) -> Int32 {
        if context.json { Console.out(ItemFormatter.jsonText(["status": 0])) }
        return ExitStatus.success
    }
}

/// `find-generic-password` and `find-internet-password`.
struct FindPasswordCommand: RunnableCommand {
    var kind: PasswordKind
    var attributes: [String: Any]
    /// `-g`: print the item and its password (on stderr, as `security` does).
    var showPassword: Bool
    /// `-w`: print only the password.
    var passwordOnly: Bool

    static func descriptor(_ kind: PasswordKind) -> CommandDescriptor {
        let options =
            kind.attributeOptions.map(\.spec) + [
                PasswordKind.accessGroupOption,
                OptionSpec(flag: "-g", help: "display the password for the item found"),
                OptionSpec(flag: "-w", help: "display only the password on stdout"),
            ]
        return CommandDescriptor(
            name: "find-\(kind.word)-password", summary: "Find \(kind.article) password item.", options: options
        ) { (parsed) throws(UsageError) in
            FindPasswordCommand(
                kind: kind, attributes: try kind.attributes(from: parsed), showPassword: parsed.has("-g"),
                passwordOnly: parsed.has("-w"))
        }
    }

    func run(_ context: CommandContext) -> Int32 {
        let wantsSecret = showPassword || passwordOnly
        var query = attributes
        query[kSecClass as String] = kind.itemClass
        query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        query[kSecReturnAttributes as String] = true
        if context.json { query[kSecReturnPersistentRef as String] = true }
        if wantsSecret { query[kSecReturnData as String] = true }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let item = result as? [String: Any] else {
            return context.fail("SecItemCopyMatching", status == errSecSuccess ? errSecItemNotFound : status)
        }
        let secret = item[kSecValueData as String] as? Data
        if context.json {
            Console.out(
                ItemFormatter.jsonText(ItemFormatter.jsonObject(item, secret: wantsSecret ? secret ?? Data() : nil)))
        } else if passwordOnly {
            Console.out(ItemFormatter.passwordOnly(secret ?? Data()))
        } else {
            Console.out(context.formatter.block(item))
            if showPassword { Console.error(ItemFormatter.passwordLine(secret ?? Data())) }
        }
        return ExitStatus.success
    }
}

/// `delete-generic-password` and `delete-internet-password`: deletes the first matching item, or with `--all` every
/// one; a delete that names no attribute is refused unless `--all` is given.
struct DeletePasswordCommand: RunnableCommand {
    var kind: PasswordKind
    var attributes: [String: Any]
    /// `--all`: delete every match, not only the first.
    var everyMatch: Bool

    static func descriptor(_ kind: PasswordKind) -> CommandDescriptor {
        CommandDescriptor(
            name: "delete-\(kind.word)-password",
            summary: "Delete \(kind.article) password item (the first match; every match with --all).",
            options: kind.attributeOptions.map(\.spec) + [
                PasswordKind.accessGroupOption,
                OptionSpec(flag: "--all", help: "delete every matching item (needed when no attribute is named)"),
            ]
        ) { (parsed) throws(UsageError) in
            let attributes = try kind.attributes(from: parsed)
            guard !attributes.isEmpty || parsed.has("--all") else {
                throw UsageError(message: "name at least one attribute of the item to delete, or give --all")
            }
            return DeletePasswordCommand(kind: kind, attributes: attributes, everyMatch: parsed.has("--all"))
        }
    }

    func run(_ context: CommandContext) -> Int32 {
        var query = attributes
        query[kSecClass as String] = kind.itemClass
        query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        query[kSecReturnAttributes as String] = true
        query[kSecReturnPersistentRef as String] = true
        if everyMatch { query[kSecMatchLimit as String] = kSecMatchLimitAll }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        let items = everyMatch ? result as? [[String: Any]] ?? [] : (result as? [String: Any]).map { [$0] } ?? []
        guard status == errSecSuccess, !items.isEmpty else {
            return context.fail("SecItemCopyMatching", status == errSecSuccess ? errSecItemNotFound : status)
        }
        var deleted: [[String: Any]] = []
        var failure: (call: String, error: KeychainError)?
        for item in items {
            guard let reference = item[kSecValuePersistentRef as String] as? Data else {
                failure = (
                    "SecItemCopyMatching",
                    KeychainError(.decode, "a matching item came back without a persistent reference to delete it by")
                )
                break
            }
            let outcome = SecItemDelete([kSecValuePersistentRef as String: reference] as CFDictionary)
            guard outcome == errSecSuccess else {
                failure = ("SecItemDelete", KeychainError(KeychainError.Code(rawValue: outcome), ""))
                break
            }
            deleted.append(item)
        }
        // What was deleted is said even when a later item failed: a failure must not hide it.
        if context.json {
            let objects = deleted.map { ItemFormatter.jsonObject($0, secret: nil) }
            let single: Any = objects.first.map { $0 as Any } ?? NSNull()
            var answer: [String: Any] = ["deleted": everyMatch ? objects as Any : single]
            if let failure {
                let status = failure.error.osStatus
                answer["status"] = Int(status)
                answer["message"] = SecCopyErrorMessageString(status, nil) as String? ?? ""
                answer["call"] = failure.call
                if !failure.error.reason.isEmpty { answer["reason"] = failure.error.reason }
            }
            Console.out(ItemFormatter.jsonText(answer))
            return failure.map { ExitStatus.forStatus($0.error.osStatus) } ?? ExitStatus.success
        }
        for item in deleted {
            Console.out(context.formatter.block(item))
            Console.out("password has been deleted.")
        }
        guard let failure else { return ExitStatus.success }
        if failure.error.reason.isEmpty { return context.fail(failure.call, failure.error.osStatus) }
        return context.fail(failure.call, failure.error)
    }
}
