import ClavisClient
import ClavisCore

/// `add-generic-password` and `add-internet-password`.
struct AddPasswordCommand: RunnableCommand {
    var kind: PasswordKind
    /// The attributes named on the command line, with `--accessible` and `--access-control` when given.
    var attributes: [AttributeKey: AttributeValue]
    var password: SecretSource
    var updateExisting: Bool
    /// `--synchronizable`: the item syncs to the user's other devices (`kSecAttrSynchronizable`).
    var synchronizable: Bool

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
                    flag: "--synchronizable",
                    help: "sync the item to this user's other devices (kSecAttrSynchronizable; see clavis sync)"),
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
            attributes.merge(try protection(parsed, for: kind.itemClass)) { _, chosen in chosen }
            return AddPasswordCommand(
                kind: kind, attributes: attributes, password: try password(parsed), updateExisting: parsed.has("-U"),
                synchronizable: parsed.has("--synchronizable"))
        }
    }

    /// The protection class (`--accessible`) and access control (`--access-control`) given, as attributes.
    private static func protection(_ parsed: ParsedOptions, for itemClass: ItemClass) throws(UsageError)
        -> [AttributeKey: AttributeValue]
    {
        var attributes: [AttributeKey: AttributeValue] = [:]
        var protection: ProtectionClass?
        if let text = parsed.value("--accessible") {
            guard let code = AccessControlText.protectionCode(text) else {
                throw UsageError(message: "--accessible: unknown protection class '\(text)'")
            }
            protection = ProtectionClass(rawValue: code)
            attributes[.accessible] = .string(code)
        }
        if let text = parsed.value("--access-control") {
            guard let flags = AccessControlText.flags(text) else {
                throw UsageError(message: "--access-control: unknown flag in '\(text)'")
            }
            let policy = AccessControl(protection: protection ?? .whenUnlocked, flags: flags)
            do throws(KeychainError) {
                try policy.validate(for: itemClass)
            } catch {
                throw UsageError(message: "--access-control: '\(text)' is not a valid combination")
            }
            attributes[.accessControl] = .data(policy.encoded)
            attributes[.accessible] = .string(policy.protection.rawValue)
        }
        return attributes
    }

    /// Where the password comes from: `-w` (given, prompted or read) or `-X` (hexadecimal), not both.
    private static func password(_ parsed: ParsedOptions) throws(UsageError) -> SecretSource {
        let password = SecretSource(parsed, flag: "-w")
        guard let hex = parsed.value("-X") else { return password }
        guard password.value == nil && !password.prompted else {
            throw UsageError(message: "give the password with -w or -X, not both")
        }
        guard let bytes = SecretSource.bytes(fromHex: hex) else {
            throw UsageError(message: "-X needs an even number of hexadecimal digits")
        }
        return SecretSource(bytes: bytes)
    }

    func run(_ context: CommandContext) -> Int32 {
        guard let secret = password.read(prompt: "password data for new item: ", confirming: true) else {
            return SecretSource.reportMissing("password for the new item", flag: "-w or -X")
        }
        let keychain: KeychainClient
        do throws(KeychainError) {
            keychain = try KeychainClient()
        } catch {
            return context.fail("SecItemAdd", error)
        }
        var stored = attributes
        stored[.synchronizable] = .bool(synchronizable)
        stored[.accessible] = stored[.accessible] ?? .string(ProtectionClass.default.rawValue)
        do throws(KeychainError) {
            _ = try keychain.add(NewItem(itemClass: kind.itemClass, attributes: stored, secret: secret))
            return succeed(context)
        } catch  where error.code == .duplicateItem && updateExisting {
            return update(keychain, secret: secret, context)
        } catch  where error.code == .notAvailable {
            return context.fail(
                "SecItemAdd", KeychainError(.notAvailable, notAvailableReason(keychain) ?? error.reason))
        } catch {
            return context.fail("SecItemAdd", error)
        }
    }

    /// `-U` after a collision: the one item with this primary key, in the group the add went to, gets the new
    /// attributes and secret.
    private func update(_ keychain: KeychainClient, secret: SecureBytes, _ context: CommandContext) -> Int32 {
        do throws(KeychainError) {
            var group = attributes[.accessGroup]?.stringValue
            if group == nil { group = try keychain.status().accessGroups.first }
            var changes = attributes
            changes.removeValue(forKey: .accessGroup)
            let query = ItemQuery(
                itemClass: kind.itemClass, attributes: kind.itemClass.primaryKeyAttributes(of: attributes),
                synchronizable: synchronizable ? .yes : .no,
                accessGroups: [group ?? ""])
            guard try keychain.update(query, with: ItemChanges(attributes: changes, secret: secret)) > 0 else {
                throw KeychainError.noItemMatches(kind.itemClass)
            }
            return succeed(context)
        } catch {
            return context.fail("SecItemUpdate", error)
        }
    }

    /// Why a passcode-bound add is not available: the keychain has no passcode, or (with one) no biometry is
    /// enrolled for `biometryCurrentSet`.
    private func notAvailableReason(_ keychain: KeychainClient) -> String? {
        guard let status = try? keychain.status() else { return nil }
        if !status.hasPasscode {
            return "the keychain has no passcode, which this item's protection needs; set one with "
                + "`clavis set-keychain-password`"
        }
        return attributes[.accessControl] != nil
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
    var attributes: [AttributeKey: AttributeValue]
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
        let item: Item
        do throws(KeychainError) {
            var query = kind.query(matching: attributes, limit: .one, returnsSecret: wantsSecret)
            // `-w` prints the password alone: a search by whole primary key then opens nothing else.
            query.returnsAttributes = !(passwordOnly && !context.json)
            let found = try KeychainClient().find(query)
            guard let first = found.first else {
                throw KeychainError.noItemMatches(kind.itemClass)
            }
            item = first
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        let secret = item.secret ?? SecureBytes([])
        if context.json {
            Console.out(ItemFormatter.jsonText(ItemFormatter.jsonObject(item, secret: wantsSecret ? secret : nil)))
        } else if passwordOnly {
            Console.out(secret.withUnsafeBytes { ItemFormatter.passwordOnly($0) })
        } else {
            Console.out(context.formatter.block(item))
            if showPassword { Console.error(secret.withUnsafeBytes { ItemFormatter.passwordLine($0) }) }
        }
        return ExitStatus.success
    }
}

/// `delete-generic-password` and `delete-internet-password`: deletes the first matching item, or with `--all` every
/// one; a delete that names no attribute is refused unless `--all` is given.
struct DeletePasswordCommand: RunnableCommand {
    var kind: PasswordKind
    var attributes: [AttributeKey: AttributeValue]
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
        let keychain: KeychainClient
        let items: [Item]
        do throws(KeychainError) {
            keychain = try KeychainClient()
            items = try keychain.find(kind.query(matching: attributes, limit: everyMatch ? .all : .one))
            guard !items.isEmpty else {
                throw KeychainError.noItemMatches(kind.itemClass)
            }
        } catch {
            return context.fail("SecItemCopyMatching", error)
        }
        var deleted: [Item] = []
        var failure: KeychainError?
        for item in items {
            do throws(KeychainError) {
                let query = ItemQuery(
                    itemClass: item.itemClass, synchronizable: .any, persistentReference: item.persistentReference)
                guard try keychain.delete(query) > 0 else {
                    throw KeychainError(.itemNotFound, "the item was deleted meanwhile")
                }
                deleted.append(item)
            } catch {
                failure = error
                break
            }
        }
        // What was deleted is said even when a later item failed: a failure must not hide it.
        if context.json {
            let objects = deleted.map { ItemFormatter.jsonObject($0, secret: nil) }
            var answer = CommandContext.failureObject("SecItemDelete", failure)
            answer["deleted"] = everyMatch ? .array(objects) : objects.first ?? .null
            Console.out(ItemFormatter.jsonText(.object(answer)))
            return failure.map(ExitStatus.forFailure) ?? ExitStatus.success
        }
        for item in deleted {
            Console.out(context.formatter.block(item))
            Console.out("password has been deleted.")
        }
        guard let failure else { return ExitStatus.success }
        return context.fail("SecItemDelete", failure)
    }
}
