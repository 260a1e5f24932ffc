import ClavisCore
import ClavisIPC
import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Frames arrive whole however the stream splits or joins them: read ahead in one receive, or in pieces.
@Suite struct SocketConnectionTests {
    /// Two connected ends of a Unix stream socket.
    private func connectedPair() throws -> (SocketConnection, SocketConnection) {
        var descriptors: [Int32] = [0, 0]
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { throw KeychainError(.io, "socketpair failed") }
        return (SocketConnection(descriptor: descriptors[0]), SocketConnection(descriptor: descriptors[1]))
    }

    /// The bytes of `frame` as they travel.
    private func wireBytes(_ frame: Frame) throws -> [UInt8] {
        let (sender, receiver) = try connectedPair()
        try sender.send(frame)
        var bytes = [UInt8](repeating: 0, count: Frame.headerSize + frame.body.count)
        #expect(recv(receiver.descriptor, &bytes, bytes.count, Int32(MSG_WAITALL)) == bytes.count)
        return bytes
    }

    @Test func twoFramesInOneWriteArriveAsTwo() throws {
        let first = Frame(requestID: 1, body: Array("first".utf8))
        let second = Frame(requestID: 2, body: [])
        let bytes = try wireBytes(first) + wireBytes(second)
        let (sender, receiver) = try connectedPair()
        #expect(write(sender.descriptor, bytes, bytes.count) == bytes.count)
        let one = try #require(try receiver.receive())
        let two = try #require(try receiver.receive())
        #expect(one.requestID == 1 && one.body == first.body)
        #expect(two.requestID == 2 && two.body.isEmpty)
    }

    @Test func aFrameWrittenAByteAtATimeArrivesWhole() throws {
        let frame = Frame(requestID: 7, body: Array(0..<200).map { UInt8($0) })
        let bytes = try wireBytes(frame)
        let (sender, receiver) = try connectedPair()
        let descriptor = sender.descriptor
        let writing = DispatchGroup()
        DispatchQueue.global().async(group: writing) {
            for byte in bytes { _ = write(descriptor, [byte], 1) }
        }
        let received = try #require(try receiver.receive())
        writing.wait()
        #expect(received.requestID == 7 && received.body == frame.body)
    }

    @Test func aBodyLargerThanTheReadAheadArrivesIntact() throws {
        let body = (0..<(300 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let (sender, receiver) = try connectedPair()
        // The writer's own end (a duplicate descriptor): the socket takes less than the body before it is read.
        let descriptor = dup(sender.descriptor)
        let writing = DispatchGroup()
        DispatchQueue.global().async(group: writing) {
            let writer = SocketConnection(descriptor: descriptor)
            try? writer.send(Frame(requestID: 3, body: body))
            try? writer.send(Frame(requestID: 4, body: [9]))
        }
        let large = try #require(try receiver.receive())
        let small = try #require(try receiver.receive())
        writing.wait()
        #expect(large.requestID == 3 && large.body == body)
        #expect(small.requestID == 4 && small.body == [9])
    }

    /// A peer that never reads fails a send once its wait is limited, instead of holding the sender forever.
    @Test(.timeLimit(.minutes(1))) func aSendToAPeerThatNeverReadsEndsOnceItsWaitIsLimited() throws {
        let (sender, receiver) = try connectedPair()
        sender.limitSendWait(seconds: 1)
        // Far more than a socket's buffer holds, and nobody reads it.
        let frame = Frame(requestID: 9, body: [UInt8](repeating: 7, count: 16 * 1024 * 1024))
        let error = try #require(throws: KeychainError.self) { try sender.send(frame) }
        #expect(error.code == .io)
        withExtendedLifetime(receiver) {}
    }

    /// The limit holds for the whole send: a peer that reads a little now and then, each time within the limit,
    /// still fails a send that would take it far longer.
    @Test(.timeLimit(.minutes(1))) func aSendToAPeerThatReadsSlowlyEndsAtItsLimit() throws {
        let (sender, receiver) = try connectedPair()
        sender.limitSendWait(seconds: 1)
        let frame = Frame(requestID: 10, body: [UInt8](repeating: 7, count: 16 * 1024 * 1024))
        let done = Atomic<Bool>(false)
        let descriptor = receiver.descriptor
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) {
            // 64 KiB every 0.3 s: the whole frame would take over a minute.
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while !done.load(ordering: .relaxed) {
                usleep(300_000)
                _ = recv(descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            }
        }
        let error = try #require(throws: KeychainError.self) { try sender.send(frame) }
        done.store(true, ordering: .relaxed)
        reading.wait()
        #expect(error.code == .io)
    }

    @Test func anEndBetweenFramesIsNilAndAnEndInsideOneIsAnError() throws {
        let bytes = try wireBytes(Frame(requestID: 5, body: Array("cut short".utf8)))
        var (sender, receiver) = try connectedPair()
        shutdown(sender.descriptor, Int32(SHUT_WR))
        #expect(try receiver.receive() == nil)

        (sender, receiver) = try connectedPair()
        #expect(write(sender.descriptor, bytes, bytes.count - 3) == bytes.count - 3)
        shutdown(sender.descriptor, Int32(SHUT_WR))
        #expect(throws: KeychainError.self) { try receiver.receive() }

        (sender, receiver) = try connectedPair()
        #expect(write(sender.descriptor, bytes, 5) == 5)
        shutdown(sender.descriptor, Int32(SHUT_WR))
        #expect(throws: KeychainError.self) { try receiver.receive() }
    }
}
