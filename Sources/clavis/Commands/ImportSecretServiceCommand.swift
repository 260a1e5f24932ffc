import ClavisBus
import ClavisClient
import ClavisCore
import ClavisIdentity

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `import-secret-service`: copies every item of the Secret Service provider running on the session bus
/// (gnome-keyring, KeePassXC) into the keychain, as Clavis's own provider holds them (`SecretServiceItem`), so that
/// programs find them there once clavisd provides the Secret Service. An item whose collection already holds one
/// with the same attributes is left as it is, so the import may be run again.
struct ImportSecretServiceCommand: RunnableCommand {
    /// Counts what would be imported, writing nothing.
    var dryRun: Bool
    /// The group the items go to.
    var accessGroup: String

    static let descriptor = CommandDescriptor(
        name: "import-secret-service",
        summary: "Copy every item of the Secret Service provider on the session bus (gnome-keyring, KeePassXC).",
        options: [
            OptionSpec(flag: "-n", valueName: nil, help: "dry run: count what would be imported, write nothing"),
            OptionSpec(
                flag: "-G", valueName: "group",
                help: "the access group to import into (default \(SecretServiceItem.sharedAccessGroup), the group "
                    + "Secret Service clients share)"),
        ]
    ) { (parsed) throws(UsageError) in
        ImportSecretServiceCommand(
            dryRun: parsed.has("-n"), accessGroup: parsed.value("-G") ?? SecretServiceItem.sharedAccessGroup)
    }

    /// What an import did, or would do.
    private struct Tally {
        var imported = 0
        var alreadyPresent = 0
        var collections: Set<String> = []
        var locked: [(label: String, items: Int)] = []
    }

    func run(_ context: CommandContext) -> Int32 {
        var tally = Tally()
        do throws(KeychainError) {
            let source = try SecretServiceSource()
            if ExecutableName.name(ofLink: "/proc/\(source.ownerPID)/exe") == "clavisd" {
                throw KeychainError(
                    .param,
                    "the Secret Service on this session bus is clavisd itself: run the import while the other "
                        + "provider owns org.freedesktop.secrets")
            }
            let keychain = try KeychainClient()
            try source.forEachItem { (item) throws(KeychainError) in
                // The other provider's session collection holds what must not touch a disk: it is left there.
                guard item.collection != SecretServiceItem.sessionCollection else { return }
                if tally.collections.insert(item.collection).inserted, !dryRun {
                    try markCollection(item.collection, label: item.collectionLabel, in: keychain)
                }
                if try isPresent(item, in: keychain) {
                    tally.alreadyPresent += 1
                    return
                }
                tally.imported += 1
                guard !dryRun else { return }
                let stored = SecretServiceItem(
                    collection: item.collection, label: item.label, attributes: item.attributes, secret: item.secret,
                    contentType: item.contentType)
                _ = try keychain.add(stored.newItem(accessGroup: accessGroup))
            } locked: { label, items in
                tally.locked.append((label, items))
            }
        } catch {
            return context.fail("import-secret-service", error)
        }
        report(tally, context)
        // Items of a collection that stayed locked were not imported: errSecInteractionNotAllowed's exit status.
        return tally.locked.isEmpty
            ? ExitStatus.success : ExitStatus.forStatus(KeychainError.Code.interactionNotAllowed.rawValue)
    }

    /// Adds the marker of the collection `name` (labelled `label`) to the target group, unless it has one: clavisd's
    /// provider lists the collections by their markers. `login`, the default collection, has none.
    private func markCollection(_ name: String, label: String, in keychain: KeychainClient) throws(KeychainError) {
        guard name != "login" else { return }
        var existing = SecretServiceItem.collectionMarkerQuery(name: name)
        existing.accessGroups = [accessGroup]
        guard try keychain.find(existing).isEmpty else { return }
        _ = try keychain.add(
            SecretServiceItem.collectionMarker(
                name: name, label: label.isEmpty ? name : label, accessGroup: accessGroup))
    }

    /// True when the item's collection already holds an item with exactly its attributes in the target group.
    private func isPresent(_ item: SecretServiceSource.SourceItem, in keychain: KeychainClient) throws(KeychainError)
        -> Bool
    {
        var query = SecretServiceItem.query(collection: item.collection, attributes: item.attributes)
        query.accessGroups = [accessGroup]
        return try keychain.find(query).contains {
            SecretServiceAttributes(of: $0.attributes)?.pairs == item.attributes
        }
    }

    private func report(_ tally: Tally, _ context: CommandContext) {
        if context.json {
            let locked: [JSONValue] = tally.locked.map {
                .object(["label": .string($0.label), "items": .integer($0.items)])
            }
            let object: [String: JSONValue] = [
                dryRun ? "wouldImport" : "imported": .integer(tally.imported),
                "alreadyPresent": .integer(tally.alreadyPresent),
                "collections": .array(tally.collections.sorted().map { .string($0) }), "locked": .array(locked),
                "dryRun": .bool(dryRun),
            ]
            Console.out(ItemFormatter.jsonText(.object(object)))
            return
        }
        let collections = tally.collections.count == 1 ? "1 collection" : "\(tally.collections.count) collections"
        Console.out(
            (dryRun ? "would import" : "imported") + " \(tally.imported) items from \(collections); "
                + "\(tally.alreadyPresent) already in the keychain")
        for (label, items) in tally.locked {
            Console.error(
                "clavis: import-secret-service: the collection \"\(ItemFormatter.printable(label))\" stayed locked: "
                    + "its \(items) items were not imported")
        }
    }
}
