public import ClavisCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One message on a keychain connection: a header (magic, version, request id, body length) and a body.
///
/// Layout: `CLVS`, version 4 (one byte; 2 since queries carry Secret Service attributes, 3 since they say whether
/// the caller reads attributes, 4 since a request sent before its process was identified is answered `sendAgain`),
/// the request id (32 bits) and the body's length (32 bits), big-endian; then the body, at most `maximumBodySize`
/// bytes. A response carries its request's id.
public struct Frame: Sendable {
    /// The id pairing a response with its request.
    public var requestID: UInt32
    /// The encoded request or response.
    public var body: [UInt8]
    /// The process that sent it, on a connection that `readsSenders`; `nil` otherwise.
    public var sender: FrameSender?
    /// Where in the stream its header began.
    public var offset: UInt64 = 0
    /// The bytes of the receiver's `FrameBudget` its body holds: to be released once it is done with.
    public var budgeted = 0

    /// The header's size in bytes.
    public static let headerSize = 13
    /// The largest body accepted: a 16 MiB secret with its attributes, or a backup of many items.
    public static let maximumBodySize = 64 * 1024 * 1024
    static let magic: [UInt8] = Array("CLVS".utf8)
    /// This program's protocol version.
    public static let version: UInt8 = 4
    /// The version the header at the start of `bytes` names when it is a Clavis header of another version; nil for
    /// this version, for fewer than its first five bytes (`CLVS` and the version: the part every version keeps), or
    /// for bytes that are not Clavis's.
    static func otherVersion(_ bytes: UnsafeRawBufferPointer) -> UInt8? {
        guard bytes.count >= 5, bytes[0..<4].elementsEqual(magic), bytes[4] != version else { return nil }
        return bytes[4]
    }

    /// The error of a connection whose peer speaks protocol version `peer`.
    public static func versionMismatch(peer: UInt8) -> KeychainError {
        KeychainError(
            .notAvailable,
            "the keychain daemon and this program speak different protocol versions (\(peer) and \(version)): they"
                + " must come from the same Clavis; after an upgrade, restart clavisd or this program,"
                + " whichever is older")
    }

    /// A frame carrying `body`.
    public init(requestID: UInt32, body: [UInt8]) {
        self.requestID = requestID
        self.body = body
    }

    func writeHeader(to writer: inout ByteWriter) {
        writer.raw(Self.magic)
        writer.byte(Self.version)
        writer.uint32(requestID)
        writer.uint32(UInt32(body.count))
    }

    static func readHeader(_ header: [UInt8]) throws(KeychainError) -> (requestID: UInt32, length: Int) {
        var reader = ByteReader(header, subject: "a keychain message")
        guard Array(try reader.take(4)) == magic else { throw reader.malformed("not a Clavis message") }
        guard try reader.byte() == version else { throw reader.malformed("an unknown protocol version") }
        let requestID = try reader.uint32()
        let length = Int(try reader.uint32())
        guard length <= maximumBodySize else { throw reader.malformed("a body of \(length) bytes") }
        return (requestID, length)
    }

    /// Zeroes `buffer` in place (it may hold part of a secret).
    static func wipe(_ buffer: inout [UInt8]) {
        buffer.withUnsafeMutableBytes { bytes in
            if let base = bytes.baseAddress { explicit_bzero(base, bytes.count) }
        }
    }

    /// Zeroes the body (it may hold a secret).
    public mutating func wipe() {
        Self.wipe(&body)
    }
}
