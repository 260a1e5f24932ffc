import ClavisCore
import Foundation
import Security

/// What one `import` added so far: each item by persistent reference, so that a failure can remove them all (an
/// import adds all or nothing) and the count can be reported.
struct ImportedItems {
    private var references: [Data] = []

    /// Adds the item `attributes` describe; its status.
    mutating func add(_ attributes: [String: Any]) -> OSStatus {
        var query = attributes
        query[kSecReturnPersistentRef as String] = true
        var reference: CFTypeRef?
        let status = SecItemAdd(query as CFDictionary, &reference)
        if status == errSecSuccess, let reference = reference as? Data { references.append(reference) }
        return status
    }

    /// Removes every item added, and reports `status` as `call`'s failure.
    func undo(_ call: String, _ status: OSStatus, _ context: CommandContext) -> Int32 {
        for reference in references { SecItemDelete([kSecValuePersistentRef as String: reference] as CFDictionary) }
        return context.fail(call, status)
    }

    /// Says how many items were imported.
    func report(_ context: CommandContext) -> Int32 {
        if context.json {
            Console.out(ItemFormatter.jsonText(["imported": references.count]))
        } else {
            Console.out("imported \(references.count) item\(references.count == 1 ? "" : "s")")
        }
        return ExitStatus.success
    }
}
