internal import CSecretSource
package import ClavisCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Another freedesktop Secret Service provider on the session bus (gnome-keyring, KeePassXC), read item by item for
/// `import-secret-service`, in a `plain` session.
package final class SecretServiceSource {
    /// One item as the provider holds it.
    package struct SourceItem {
        /// The collection's name (the last element of its object path) and label.
        package var collection: String
        package var collectionLabel: String
        package var label: String
        package var attributes: [String: String]
        package var secret: SecureBytes
        package var contentType: String
    }

    /// The process providing the Secret Service.
    package let ownerPID: UInt32
    private let source: OpaquePointer

    /// Opens a session with the owner of `org.freedesktop.secrets`.
    ///
    /// - Throws: `notAvailable` naming why there is none: no session bus, no provider, or no libsystemd.
    package init() throws(KeychainError) {
        var pid: UInt32 = 0
        var error: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        guard let opened = clavis_secret_source_open(&pid, &error, &message, message.count) else {
            throw KeychainError(.notAvailable, Self.text(message))
        }
        source = opened
        ownerPID = pid
    }

    deinit { clavis_secret_source_close(source) }

    /// Calls `body` for each item of every collection the provider unlocks (its own prompt may ask the user), and
    /// `locked` with the label and item count of each collection that stays locked.
    ///
    /// - Throws: what `body` throws, or `io` naming what the provider failed to give.
    package func forEachItem(
        _ body: @escaping (SourceItem) throws(KeychainError) -> Void,
        locked: @escaping (_ label: String, _ itemCount: Int) -> Void
    ) throws(KeychainError) {
        let visit = Visit(body: body, locked: locked)
        var message = [CChar](repeating: 0, count: 512)
        let result = withExtendedLifetime(visit) {
            clavis_secret_source_visit(
                source,
                { context, item in
                    let visit = Unmanaged<Visit>.fromOpaque(context!).takeUnretainedValue()
                    return visit.accept(item!.pointee)
                },
                { context, _, label, count in
                    let visit = Unmanaged<Visit>.fromOpaque(context!).takeUnretainedValue()
                    visit.locked(label.map { String(cString: $0) } ?? "", count)
                }, Unmanaged.passUnretained(visit).toOpaque(), &message, message.count)
        }
        if let failure = visit.failure { throw failure }
        if result < 0 { throw KeychainError(.io, Self.text(message)) }
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What a visit does with each item, and the first error it met (which stops it).
    private final class Visit {
        let body: (SourceItem) throws(KeychainError) -> Void
        let locked: (String, Int) -> Void
        var failure: KeychainError?

        init(body: @escaping (SourceItem) throws(KeychainError) -> Void, locked: @escaping (String, Int) -> Void) {
            self.body = body
            self.locked = locked
        }

        /// Hands one item to the body: 0 to go on, 1 to stop on its error.
        func accept(_ item: clavis_secret_source_item) -> Int32 {
            var attributes: [String: String] = [:]
            for index in 0..<item.attribute_count {
                attributes[String(cString: item.attribute_names[index]!)] = String(
                    cString: item.attribute_values[index]!)
            }
            let collectionPath = String(cString: item.collection_path)
            let secret =
                item.secret_size == 0
                ? SecureBytes([])
                : SecureBytes(copying: UnsafeRawBufferPointer(start: item.secret, count: item.secret_size))
            do throws(KeychainError) {
                try body(
                    SourceItem(
                        collection: String(collectionPath.split(separator: "/").last ?? ""),
                        collectionLabel: item.collection_label.map { String(cString: $0) } ?? "",
                        label: item.label.map { String(cString: $0) } ?? "", attributes: attributes, secret: secret,
                        contentType: item.content_type.map { String(cString: $0) } ?? "text/plain"))
                return 0
            } catch {
                failure = error
                return 1
            }
        }
    }
}
