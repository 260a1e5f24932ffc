import ClavisClient
import ClavisCore
import ClavisCrypto

/// What one `import` added so far: each item by persistent reference, so that a failure can remove them all (an
/// import adds all or nothing) and the count can be reported.
struct ImportedItems {
    private var added: [Item] = []
    /// The keychain the items go to.
    private let client: KeychainClient

    private init(client: KeychainClient) {
        self.client = client
    }

    /// Runs `body` with a new record, all or nothing: a failure removes what `body` added and is reported as
    /// `SecItemAdd`'s; otherwise how many items were imported is said.
    static func importing(
        _ context: CommandContext, _ body: (inout ImportedItems) throws(KeychainError) -> Void
    ) -> Int32 {
        var imported: ImportedItems
        do throws(KeychainError) {
            imported = ImportedItems(client: try KeychainClient())
        } catch {
            return context.fail("SecItemAdd", error)
        }
        do throws(KeychainError) {
            try body(&imported)
        } catch {
            return imported.undo("SecItemAdd", error, context)
        }
        return imported.report(context)
    }

    /// Adds `item`.
    ///
    /// - Throws: what `KeychainClient.add` throws.
    mutating func add(_ item: NewItem) throws(KeychainError) {
        added.append(try client.add(item))
    }

    /// Adds an identity (its certificate, then its private key unless stored already); the certificate counts as
    /// the one item imported, as Apple's `SecItemAdd` of a `SecIdentity` answers it.
    ///
    /// - Throws: what `KeychainClient.addIdentity` throws.
    mutating func addIdentity(
        certificate: X509Certificate, privateKey: AsymmetricKey, attributes: [AttributeKey: AttributeValue]
    ) throws(KeychainError) {
        added.append(
            try client.addIdentity(certificate: certificate, privateKey: privateKey, attributes: attributes).item)
    }

    /// Removes every item added, and reports `failure` as `call`'s.
    private func undo(_ call: String, _ failure: KeychainError, _ context: CommandContext) -> Int32 {
        for item in added {
            _ = try? client.delete(
                ItemQuery(
                    itemClass: item.itemClass, synchronizable: .any, persistentReference: item.persistentReference))
        }
        return context.fail(call, failure)
    }

    /// Says how many items were imported.
    private func report(_ context: CommandContext) -> Int32 {
        if context.json {
            Console.out(ItemFormatter.jsonText(["imported": .integer(added.count)]))
        } else {
            Console.out("imported \(added.count) item\(added.count == 1 ? "" : "s")")
        }
        return ExitStatus.success
    }
}
