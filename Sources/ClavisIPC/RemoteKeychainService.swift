public import ClavisCore
public import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The keychain service behind clavisd's socket: every call one request frame and one response frame.
///
/// One connection per service, opened on first use; calls from several threads take turns on it. When the daemon
/// went away (restarted, killed), the next call connects again. A request whose answer was lost with the connection
/// answers `io` and is not repeated (it may have been carried out).
public final class RemoteKeychainService: KeychainService {
    /// The daemon's socket.
    public let socketPath: String
    /// Why the daemon was chosen, for `status()`.
    public let reason: String
    private let connection = Mutex<Connection>(Connection())

    private struct Connection: ~Copyable {
        var socket: SocketConnection?
        var nextRequestID: UInt32 = 1
        /// The process that connected: a child made by `fork` connects anew rather than share the parent's socket
        /// (their frames would interleave).
        var owner: Int32 = getpid()
    }

    /// A service reached through the socket at `socketPath`; nothing is connected until the first call.
    public init(socketPath: String, reason: String) {
        self.socketPath = socketPath
        self.reason = reason
    }

    /// Connects now, to find out whether a daemon answers.
    ///
    /// - Throws: `notAvailable` naming the socket when nothing answers there.
    public func connect() throws(KeychainError) {
        try connection.withLock { (connection: inout Connection) throws(KeychainError) in
            if connection.socket == nil { connection.socket = try SocketConnection(connectingTo: socketPath) }
        }
    }

    public func add(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        try answer(.add(item)) { (response) throws(KeychainError) -> Item? in
            if case .item(let item) = response { item } else { nil }
        }
    }

    public func find(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<[Item]> {
        try answer(.find(query)) { (response) throws(KeychainError) -> [Item]? in
            if case .items(let items) = response { items } else { nil }
        }
    }

    public func lockedItemReferences(_ query: ItemQuery) throws(KeychainError) -> [PersistentReference] {
        guard case .references(let references) = try call(.lockedItemReferences(query)) else { throw unexpected() }
        return references
    }

    public func update(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError) -> ServiceAnswer<Int> {
        try answer(.update(query, changes), count)
    }

    public func delete(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<Int> {
        try answer(.delete(query), count)
    }

    public func addGeneratedKey(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        try answer(.addGeneratedKey(item)) { (response) throws(KeychainError) -> Item? in
            if case .item(let item) = response { item } else { nil }
        }
    }

    public func useKey(_ reference: PersistentReference, for use: KeyUse, authentication: AuthenticationProof?)
        throws(KeychainError) -> ServiceAnswer<SecureBytes>
    {
        try answer(.useKey(reference, use, authentication)) { (response) throws(KeychainError) -> SecureBytes? in
            if case .keyResult(let result) = response { result } else { nil }
        }
    }

    public func generateSealedKey(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<SealedKey> {
        try answer(.generateSealedKey(item)) { (response) throws(KeychainError) -> SealedKey? in
            if case .sealedKey(let key) = response { key } else { nil }
        }
    }

    public func useSealedKey(_ box: [UInt8], for use: KeyUse, authentication: AuthenticationProof?)
        throws(KeychainError) -> ServiceAnswer<SecureBytes>
    {
        try answer(.useSealedKey(box, use, authentication)) { (response) throws(KeychainError) -> SecureBytes? in
            if case .keyResult(let result) = response { result } else { nil }
        }
    }

    public func addSealedKey(_ box: [UInt8], as item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        try answer(.addSealedKey(box, item)) { (response) throws(KeychainError) -> Item? in
            if case .item(let item) = response { item } else { nil }
        }
    }

    public func lock() throws(KeychainError) {
        try expectDone(.lock)
    }

    public func unlock(passcode: SecureBytes?) throws(KeychainError) {
        try expectDone(.unlock(passcode))
    }

    public func verifyPasscode(_ passcode: SecureBytes, session: AuthenticationSessionID?) throws(KeychainError)
        -> Data
    {
        guard case .identity(let identity) = try call(.verifyPasscode(passcode, session)) else { throw unexpected() }
        return identity
    }

    public func promptForPasscode(_ prompt: PasscodePrompt) throws(KeychainError) -> Data {
        guard case .identity(let identity) = try call(.promptForPasscode(prompt)) else { throw unexpected() }
        return identity
    }

    public func biometryStatus() throws(KeychainError) -> BiometryStatus {
        guard case .biometry(let status) = try call(.biometryStatus) else { throw unexpected() }
        return status
    }

    public func scanBiometry(reason: String, session: AuthenticationSessionID) throws(KeychainError)
        -> Result<Data, AuthenticationFailure>
    {
        guard case .biometricCheck(let outcome) = try call(.scanBiometry(reason: reason, session)) else {
            throw unexpected()
        }
        return outcome
    }

    public func endAuthenticationSession(_ session: AuthenticationSessionID) throws(KeychainError) {
        try expectDone(.endAuthenticationSession(session))
    }

    public func setPasscode(_ newPasscode: SecureBytes?, current: SecureBytes?, strength: PasscodeStrength)
        throws(KeychainError)
    {
        try expectDone(.setPasscode(newPasscode, current: current, strength))
    }

    public func status() throws(KeychainError) -> KeychainStatus {
        guard case .status(var status) = try call(.status) else { throw unexpected() }
        status.location = .daemon(socket: socketPath)
        status.reason = reason
        return status
    }

    public func exportBackup(passphrase: SecureBytes, strength: PasscodeStrength) throws(KeychainError)
        -> (archive: Data, summary: BackupSummary)
    {
        guard case .backup(let archive, let summary) = try call(.exportBackup(passphrase: passphrase, strength))
        else { throw unexpected() }
        return (archive, summary)
    }

    public func purgeAccessGroups(_ groups: [String]) throws(KeychainError) -> AccessGroupPurge {
        guard case .purge(let purge) = try call(.purgeAccessGroups(groups)) else { throw unexpected() }
        return purge
    }

    public func importBackup(_ archive: Data, passphrase: SecureBytes) throws(KeychainError) -> RestoreSummary {
        guard case .restore(let summary) = try call(.importBackup(archive, passphrase: passphrase)) else {
            throw unexpected()
        }
        return summary
    }

    public func sync(_ command: SyncCommand) throws(KeychainError) -> SyncStatus {
        guard case .syncStatus(let status) = try call(.sync(command)) else { throw unexpected() }
        return status
    }

    public func accessLog(_ query: AccessLogQuery) throws(KeychainError) -> [AccessLogEntry] {
        guard case .accessLog(let lines) = try call(.accessLog(query)) else { throw unexpected() }
        var entries: [AccessLogEntry] = []
        for line in lines.split(separator: UInt8(ascii: "\n")) {
            guard let entry = AccessLogEntry(jsonLine: line) else {
                throw KeychainError(.decode, "the keychain daemon sent an access-log line that is not an entry")
            }
            entries.append(entry)
        }
        return entries
    }

    // MARK: Calls

    private func count(_ response: Response) throws(KeychainError) -> Int? {
        if case .count(let count) = response { count } else { nil }
    }

    private func expectDone(_ request: Request) throws(KeychainError) {
        guard case .done = try call(request) else { throw unexpected() }
    }

    /// An item call's answer: the result `extract` finds in the response, or what the client must do first.
    private func answer<Result: Sendable>(
        _ request: Request, _ extract: (Response) throws(KeychainError) -> Result?
    ) throws(KeychainError) -> ServiceAnswer<Result> {
        let response = try call(request)
        switch response {
        case .needsUnlock: return .needsUnlock
        case .needsAuthentication(let policy, let use): return .needsAuthentication(policy, use)
        default:
            guard let result = try extract(response) else { throw unexpected() }
            return .done(result)
        }
    }

    /// Sends `request` and returns the daemon's response; its failure is thrown.
    private func call(_ request: Request) throws(KeychainError) -> Response {
        var writer = ByteWriter()
        request.encode(to: &writer)
        defer { writer.wipe() }
        let response = try connection.withLock { (connection: inout Connection) throws(KeychainError) -> Response in
            let requestID = connection.nextRequestID
            connection.nextRequestID &+= 1
            let frame = Frame(requestID: requestID, body: writer.bytes)
            if connection.owner != getpid() {
                connection.socket = nil
                connection.owner = getpid()
            }
            let socket: SocketConnection
            if let open = connection.socket {
                socket = open
            } else {
                socket = try SocketConnection(connectingTo: socketPath)
                connection.socket = socket
            }
            do {
                try socket.send(frame)
            } catch {
                if let version = socket.versionNoticeLeft() {
                    connection.socket = nil
                    throw located(Frame.versionMismatch(peer: version))
                }
                // The daemon went away since the last call: connect again once; nothing was carried out.
                connection.socket = nil
                let fresh = try SocketConnection(connectingTo: socketPath)
                connection.socket = fresh
                try fresh.send(frame)
            }
            var response = try receiveResponse(to: requestID, &connection)
            if case .sendAgain = response {
                // The first request of this process on the connection reached the daemon before the daemon had
                // identified the process: sent again now, it is answered.
                try connection.socket?.send(frame)
                response = try receiveResponse(to: requestID, &connection)
            }
            return response
        }
        if case .failure(let error) = response { throw error }
        if case .sendAgain = response {
            throw KeychainError(.io, "the keychain daemon did not identify this process")
        }
        return response
    }

    /// The daemon's response to request `requestID` on the connection.
    private func receiveResponse(to requestID: UInt32, _ connection: inout Connection) throws(KeychainError)
        -> Response
    {
        guard var reply = try receiveDroppingOnFailure(&connection) else {
            connection.socket = nil
            throw KeychainError(.io, "the keychain daemon closed the connection before answering")
        }
        defer { reply.wipe() }
        guard reply.requestID == requestID else {
            connection.socket = nil
            throw KeychainError(.io, "the keychain daemon answered another request")
        }
        var reader = ByteReader(reply.body, subject: "the keychain daemon's answer")
        return try Response(from: &reader)
    }

    private func receiveDroppingOnFailure(_ connection: inout Connection) throws(KeychainError) -> Frame? {
        do {
            return try connection.socket?.receive()
        } catch {
            let otherVersion = connection.socket?.peerVersion != nil
            connection.socket = nil
            if otherVersion { throw located(error) }
            throw error
        }
    }

    /// `error` (the daemon at this socket is of another Clavis) naming where the daemon runs.
    private func located(_ error: KeychainError) -> KeychainError {
        KeychainError(error.code, "\(socketPath): \(error.reason)")
    }

    private func unexpected() -> KeychainError {
        KeychainError(.io, "the keychain daemon's answer does not fit the request")
    }
}
