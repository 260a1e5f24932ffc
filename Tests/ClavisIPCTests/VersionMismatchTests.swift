import ClavisCore
import ClavisIPC
import Dispatch
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A client and a daemon of different Clavis versions name both protocol versions, rather than see the connection
/// close (`errSecIO`) with nothing said.
@Suite struct VersionMismatchTests {
    private static let streamType: Int32 = {
        #if canImport(Glibc)
            Int32(SOCK_STREAM.rawValue)
        #else
            SOCK_STREAM
        #endif
    }()

    /// Two connected ends of a Unix stream socket: raw bytes go in at the first, frames come out of the second.
    private func connectedPair() throws -> (Int32, SocketConnection) {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Self.streamType, 0, &descriptors) == 0 else {
            throw KeychainError(.io, "socketpair failed")
        }
        return (descriptors[0], SocketConnection(descriptor: descriptors[1]))
    }

    /// A header of protocol version 9 (request id 1, no body), as a later Clavis might send one.
    private static let laterHeader = Array("CLVS".utf8) + [9, 0, 0, 0, 1, 0, 0, 0, 0]

    @Test func aHeaderOfAnotherVersionNamesBothVersions() throws {
        let (peer, receiver) = try connectedPair()
        defer { close(peer) }
        #expect(write(peer, Self.laterHeader, Self.laterHeader.count) == Self.laterHeader.count)
        let error = try #require(throws: KeychainError.self) { try receiver.receive() }
        #expect(error.code == .notAvailable)
        #expect(error.reason.contains("(9 and \(Frame.version))"))
        #expect(receiver.peerVersion == 9)
    }

    @Test func aNoticeShorterThanThisVersionsHeaderIsNamedToo() throws {
        // A Clavis whose header is shorter says its magic and version, then closes.
        let (peer, receiver) = try connectedPair()
        let notice = Array("CLVS".utf8) + [2]
        #expect(write(peer, notice, notice.count) == notice.count)
        close(peer)
        let error = try #require(throws: KeychainError.self) { try receiver.receive() }
        #expect(error.code == .notAvailable)
        #expect(error.reason.contains("(2 and \(Frame.version))"))
    }

    @Test(.timeLimit(.minutes(1))) func aShortHeaderOfAnotherVersionIsNamedWithoutWaitingForMore() throws {
        // Its magic and version, and nothing more for now: the connection stays open.
        let (peer, receiver) = try connectedPair()
        defer { close(peer) }
        let notice = Array("CLVS".utf8) + [9]
        #expect(write(peer, notice, notice.count) == notice.count)
        let error = try #require(throws: KeychainError.self) { try receiver.receive() }
        #expect(error.code == .notAvailable)
        #expect(receiver.peerVersion == 9)
    }

    @Test func bytesThatAreNotClavissAreNoVersionMismatch() throws {
        let (peer, receiver) = try connectedPair()
        let bytes = Array("HTTP/1.1 200".utf8) + [0, 0, 0]
        #expect(write(peer, bytes, bytes.count) == bytes.count)
        close(peer)
        let error = try #require(throws: KeychainError.self) { try receiver.receive() }
        #expect(error.code != .notAvailable)
        #expect(receiver.peerVersion == nil)
    }

    @Test func theNoticeIsAnEmptyFrameOfThisVersion() throws {
        let (peer, sender) = try connectedPair()
        defer { close(peer) }
        sender.sendVersionNotice()
        var bytes = [UInt8](repeating: 0, count: Frame.headerSize)
        #expect(recv(peer, &bytes, bytes.count, Int32(MSG_WAITALL)) == bytes.count)
        #expect(Array(bytes[0..<5]) == Array("CLVS".utf8) + [Frame.version])
        #expect(Array(bytes[5...]).allSatisfy { $0 == 0 })
    }

    /// A stand-in for a daemon of protocol version 9 at a socket in a new folder: it reads at most `reading` bytes
    /// of the first request, answers with its own header and closes, as clavisd does with a frame it cannot read.
    /// It serves one connection: a client that connects again is refused, so a client that missed the notice fails
    /// the test rather than wait on a daemon that never reads.
    private func laterDaemon(reading: Int, _ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clavis-version-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("clavisd.sock").path
        let listener = socket(AF_UNIX, Self.streamType, 0)
        #expect(listener >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0 && listen(listener, 1) == 0)
        let serving = DispatchGroup()
        DispatchQueue.global().async(group: serving) {
            var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let connection = poll(&waiting, 1, 30_000) == 1 ? accept(listener, nil, nil) : -1
            close(listener)
            guard connection >= 0 else { return }
            var request = [UInt8](repeating: 0, count: reading)
            _ = recv(connection, &request, request.count, 0)
            _ = write(connection, Self.laterHeader, Self.laterHeader.count)
            close(connection)
        }
        try body(path)
        serving.wait()
    }

    /// A client of this Clavis calling a daemon of a later one: the call fails with `errSecNotAvailable`, naming the
    /// socket and both versions.
    @Test(.timeLimit(.minutes(1))) func aClientCallingADaemonOfAnotherVersionIsToldSo() throws {
        try laterDaemon(reading: 64) { path in
            let error = try #require(throws: KeychainError.self) {
                try RemoteKeychainService(socketPath: path, reason: "test").status()
            }
            #expect(error.code == .notAvailable)
            #expect(error.reason.hasPrefix(path + ": "))
            #expect(error.reason.contains("(9 and \(Frame.version))"))
        }
    }

    /// The same for a request larger than the socket's buffer: the daemon closes before reading it all, so the send
    /// fails, and the notice it left is read then.
    @Test(.timeLimit(.minutes(1))) func aRequestTooLargeToSendWholeStillHearsTheNotice() throws {
        try laterDaemon(reading: 16 * 1024) { path in
            let item = NewItem(
                itemClass: .genericPassword, attributes: [.service: .string("large")],
                secret: SecureBytes([UInt8](repeating: 1, count: 4 * 1024 * 1024)))
            let error = try #require(throws: KeychainError.self) {
                try RemoteKeychainService(socketPath: path, reason: "test").add(item)
            }
            #expect(error.code == .notAvailable)
            #expect(error.reason.hasPrefix(path + ": "))
            #expect(error.reason.contains("(9 and \(Frame.version))"))
        }
    }
}
