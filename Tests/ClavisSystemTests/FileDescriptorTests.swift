import ClavisSystem
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A descriptor a `FileDescriptor` owns is closed when the value ends, and only then. Each test watches a pipe's read
/// end: it reads the end of the stream once the only write end is closed, whatever other tests open meanwhile.
@Suite struct FileDescriptorTests {
    /// A pipe: its read end, and its write end.
    private func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    /// True when `descriptor` has something to read now, or the end of the stream.
    private func isReadable(_ descriptor: Int32) -> Bool {
        var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&watch, 1, 0) == 1
    }

    @Test func theDescriptorClosesWhenTheValueEnds() throws {
        let ends = try pipeEnds()
        defer { close(ends.read) }
        do {
            let owned = FileDescriptor(owning: ends.write)
            #expect(owned.rawValue == ends.write)
            #expect(!isReadable(ends.read))
        }
        #expect(isReadable(ends.read))
        var byte: UInt8 = 0
        #expect(read(ends.read, &byte, 1) == 0)
    }

    @Test func aReleasedDescriptorStaysOpen() throws {
        let ends = try pipeEnds()
        defer { close(ends.read) }
        let number = FileDescriptor(owning: ends.write).release()
        #expect(number == ends.write)
        #expect(!isReadable(ends.read))
        close(number)
        #expect(isReadable(ends.read))
    }

    @Test func aFileThatCannotBeOpenedThrowsItsError() {
        #expect(throws: SystemError(ENOENT)) {
            _ = try FileDescriptor(opening: "/nonexistent-clavis-test/file", O_RDONLY)
        }
    }
}
