import CSecretService
import ClavisCore
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The Secret Service on the session bus: the D-Bus layer (`CSecretService`, sd-bus) on a thread of its own, each
/// call it receives turned into a `SecretServiceRequest` for the provider, and the provider's `SecretServiceReply`
/// written back. The one file where the C types meet Swift.
enum SecretServiceBus {
    /// Whether the provider serves, and under which name.
    enum Outcome: Equatable {
        /// It owns `org.freedesktop.secrets`.
        case ownsName
        /// Another program owns the name: the provider serves nothing (clients would never find it).
        case nameTaken
        /// No session bus could be reached, for this reason.
        case unreachable(String)
    }

    /// Connects to the session bus and, when the name is free, serves `provider` on a thread of its own until the
    /// bus connection ends.
    static func serve(_ provider: SecretServiceProvider) -> Outcome {
        var error: Int32 = 0
        var ownsName: Int32 = 0
        guard let opened = clavis_secret_service_open(&error, &ownsName) else {
            return .unreachable(SystemError(-error).description)
        }
        guard ownsName == 1 else {
            clavis_secret_service_close(opened)
            return .nameTaken
        }
        let connection = Connection(pointer: opened, provider: provider)
        let started = DetachedThread.start {
            let context = Unmanaged.passRetained(connection).toOpaque()
            let result = clavis_secret_service_run(
                connection.pointer,
                { context, request, reply in
                    let connection = Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue()
                    guard let request, let reply else { return }
                    SecretServiceBus.answer(request.pointee, into: reply, on: connection)
                }, context)
            DaemonLog.report("stopped serving the Secret Service: \(SystemError(-result))")
            clavis_secret_service_close(connection.pointer)
            Unmanaged<Connection>.fromOpaque(context).release()
        }
        if !started {
            clavis_secret_service_close(opened)
            return .unreachable("no thread to serve it on")
        }
        return .ownsName
    }

    /// The bus connection and the provider, handed to the serving thread (which alone uses them).
    private final class Connection: @unchecked Sendable {
        let pointer: OpaquePointer
        let provider: SecretServiceProvider

        init(pointer: OpaquePointer, provider: SecretServiceProvider) {
            self.pointer = pointer
            self.provider = provider
        }
    }

    /// Answers one request into the layer's reply; a prompt's asking goes to a thread of its own, which completes
    /// the prompt through the layer when the user has answered.
    private static func answer(_ raw: clavis_ss_request, into reply: OpaquePointer, on connection: Connection) {
        switch connection.provider.answer(request(raw)) {
        case .failure(let error):
            clavis_ss_reply_fail(reply, errorCode(error.kind), error.message)
        case .success(let answer):
            write(answer, into: reply)
            guard let ask = answer.deferredPrompt else { return }
            clavis_ss_reply_defer(reply)
            let path = String(cString: raw.path)
            clavis_secret_service_retain(connection.pointer)
            let complete: @Sendable () -> Void = {
                let outcome = ask()
                withCStrings(outcome.paths) { objects in
                    clavis_secret_service_complete(
                        connection.pointer, path, outcome.dismissed ? 1 : 0, objects.baseAddress, objects.count)
                }
            }
            if !DetachedThread.start(complete) { complete() }
        }
    }

    /// Calls `body` with `strings` as C strings, valid for the call.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Result
    ) -> Result {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        defer {
            for copy in copies { free(copy) }
        }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer(body)
    }

    private static func write(_ answer: SecretServiceReply, into reply: OpaquePointer) {
        for path in answer.paths { clavis_ss_reply_add_path(reply, 0, path) }
        for path in answer.secondPaths { clavis_ss_reply_add_path(reply, 1, path) }
        if let bytes = answer.bytes { clavis_ss_reply_set_bytes(reply, bytes, bytes.count) }
        for (item, secret) in answer.secrets {
            secret.parameters.withUnsafeBufferPointer { parameters in
                secret.value.withUnsafeBytes { value in
                    secret.session.withCString { session in
                        secret.contentType.withCString { contentType in
                            var transported = clavis_ss_secret(
                                session: session,
                                parameters: clavis_ss_bytes(bytes: parameters.baseAddress, count: parameters.count),
                                value: clavis_ss_bytes(
                                    bytes: value.baseAddress?.assumingMemoryBound(to: UInt8.self), count: value.count),
                                content_type: contentType)
                            clavis_ss_reply_add_secret(reply, item, &transported)
                        }
                    }
                }
            }
        }
        if let description = answer.description {
            clavis_ss_reply_describe(
                reply, description.label, description.locked ? 1 : 0, description.created, description.modified)
        }
        if answer.detailsAreSealed { clavis_ss_reply_seal_details(reply) }
        for (name, value) in answer.attributes.sorted(by: { $0.key < $1.key }) {
            clavis_ss_reply_add_attribute(reply, name, value)
        }
        clavis_ss_reply_set_dismissed(reply, answer.dismissed ? 1 : 0)
        for signal in answer.signals { clavis_ss_reply_emit(reply, signal.path, signal.member, signal.object) }
        clavis_ss_reply_set_signals_private(reply, answer.signalsArePrivate ? 1 : 0)
    }

    /// The request in Swift types.
    private static func request(_ raw: clavis_ss_request) -> SecretServiceRequest {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        func bytes(_ value: clavis_ss_bytes) -> [UInt8] {
            guard let base = value.bytes, value.count > 0 else { return [] }
            return Array(UnsafeBufferPointer(start: base, count: value.count))
        }
        var attributes: [String: String]?
        if raw.has_attributes != 0 {
            var pairs: [String: String] = [:]
            for index in 0..<raw.attribute_count {
                pairs[text(raw.attribute_names[index])] = text(raw.attribute_values[index])
            }
            attributes = pairs
        }
        let objects = (0..<raw.object_count).map { text(raw.objects[$0]) }
        var secret: SecretServiceRequest.TransportedSecret?
        if raw.operation == CLAVIS_SS_CREATE_ITEM || raw.operation == CLAVIS_SS_SET_SECRET {
            secret = .init(
                session: text(raw.secret.session), parameters: bytes(raw.secret.parameters),
                value: SecureBytes(
                    copying: UnsafeRawBufferPointer(start: raw.secret.value.bytes, count: raw.secret.value.count)),
                contentType: text(raw.secret.content_type))
        }
        return SecretServiceRequest(
            operation: operation(raw.operation), path: text(raw.path), sender: text(raw.sender), pid: raw.pid,
            uid: raw.uid, pidfd: raw.pidfd, text: text(raw.text), object: text(raw.object), objects: objects,
            attributes: attributes, label: raw.has_label != 0 ? text(raw.label) : nil,
            input: raw.input.bytes != nil ? bytes(raw.input) : nil, secret: secret, replace: raw.replace != 0,
            strict: raw.strict != 0, withChildren: raw.with_children != 0)
    }

    private static func operation(_ raw: clavis_ss_operation) -> SecretServiceRequest.Operation {
        switch raw {
        case CLAVIS_SS_OPEN_SESSION: .openSession
        case CLAVIS_SS_CLOSE_SESSION: .closeSession
        case CLAVIS_SS_SEARCH_ITEMS: .searchItems
        case CLAVIS_SS_UNLOCK: .unlock
        case CLAVIS_SS_LOCK: .lock
        case CLAVIS_SS_GET_SECRETS: .getSecrets
        case CLAVIS_SS_READ_ALIAS: .readAlias
        case CLAVIS_SS_SET_ALIAS: .setAlias
        case CLAVIS_SS_CREATE_COLLECTION: .createCollection
        case CLAVIS_SS_DELETE: .delete
        case CLAVIS_SS_CREATE_ITEM: .createItem
        case CLAVIS_SS_SET_SECRET: .setSecret
        case CLAVIS_SS_DESCRIBE: .describe
        case CLAVIS_SS_SET_PROPERTIES: .setProperties
        case CLAVIS_SS_PROMPT: .prompt
        case CLAVIS_SS_DISMISS: .dismiss
        default: .clientGone
        }
    }

    private static func errorCode(_ kind: SecretServiceError.Kind) -> clavis_ss_error {
        switch kind {
        case .failed: CLAVIS_SS_ERROR_FAILED
        case .noSuchObject: CLAVIS_SS_ERROR_NO_SUCH_OBJECT
        case .isLocked: CLAVIS_SS_ERROR_IS_LOCKED
        case .noSession: CLAVIS_SS_ERROR_NO_SESSION
        case .invalidArguments: CLAVIS_SS_ERROR_INVALID_ARGS
        case .notSupported: CLAVIS_SS_ERROR_NOT_SUPPORTED
        case .accessDenied: CLAVIS_SS_ERROR_ACCESS_DENIED
        }
    }
}
