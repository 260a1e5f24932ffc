internal import CPostgres
public import ClavisCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A notification the server sent to a channel this connection listens on (`NOTIFY`).
public struct SyncNotification: Sendable, Equatable {
    /// The channel.
    public var channel: String
    /// The payload (at most 8,000 bytes, PostgreSQL's limit).
    public var payload: String

    /// A notification on `channel` with `payload`.
    public init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}

extension SyncDatabase {
    /// Listens on `channel`: the server's notifications to it reach `nextNotification`.
    ///
    /// - Throws: `param` for a channel name that is not a plain identifier; what `execute` throws.
    public func listen(_ channel: String) throws(KeychainError) {
        try execute("LISTEN \(try SyncIdentifier.quoted(channel))")
    }

    /// The next notification received, waiting for one at most `milliseconds` (-1: without limit), or until
    /// `wake` (a descriptor, -1 for none) is readable; `nil` when none came in time, or `wake` woke it (which it
    /// leaves as it is).
    ///
    /// - Throws: `notAvailable` when the connection failed.
    public func nextNotification(waitingAtMost milliseconds: Int32, orUntilReadable wake: Int32 = -1)
        throws(KeychainError) -> SyncNotification?
    {
        let deadline = milliseconds < 0 ? nil : ContinuousClock.now + .milliseconds(Int(milliseconds))
        while true {
            if let waiting = takeNotification() { return waiting }
            var remaining: Int32 = -1
            if let deadline {
                let now = ContinuousClock.now
                guard now <= deadline else { return nil }
                let left = now.duration(to: deadline).components
                remaining = Int32(clamping: left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000)
            }
            var descriptors = [
                pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            guard descriptors[0].fd >= 0 else {
                throw KeychainError(.notAvailable, "the sync database connection is closed")
            }
            // Woken by a signal, or by input that held no notification: wait again for what time is left.
            guard poll(&descriptors, 2, remaining) > 0 else { continue }
            if descriptors[0].revents != 0, !consumeInput() {
                throw KeychainError(.notAvailable, "the sync database connection failed while waiting")
            }
            if descriptors[1].revents != 0 { return takeNotification() }
        }
    }
}

extension SyncDatabase {
    fileprivate var socketDescriptor: Int32 { clavis_pg_socket(connection) }

    fileprivate func consumeInput() -> Bool { clavis_pg_consume_input(connection) != 0 }

    fileprivate func takeNotification() -> SyncNotification? {
        var channel = [CChar](repeating: 0, count: 256)
        var payload = [CChar](repeating: 0, count: 8192)
        guard clavis_pg_next_notification(connection, &channel, channel.count, &payload, payload.count) != 0 else {
            return nil
        }
        return SyncNotification(channel: Self.text(channel), payload: Self.text(payload))
    }

    /// The text of a NUL-terminated C string held in `characters`.
    fileprivate static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
