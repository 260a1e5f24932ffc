import ClavisCore
import FoundationEssentials
import Glibc
import Testing

@testable import ClavisServer

/// clavisd hands a request's access-log entry to the log before the answer goes out and writes it after; a question
/// to the log in between still finds it, written once.
@Suite struct AccessLogTests {
    private func entry(_ operation: String) -> AccessLogEntry {
        AccessLogEntry(
            time: Date(), uid: 1000, pid: 42, executable: "/usr/bin/app", application: "app", operation: operation,
            status: 0, outcome: "done")
    }

    private func operations(_ log: AccessLog) -> [String] {
        String(decoding: log.lines(matching: AccessLogQuery(), viewer: 0), as: UTF8.self).split(separator: "\n")
            .compactMap { AccessLogEntry(jsonLine: Array($0.utf8))?.operation }
    }

    @Test func anEntryAnnouncedAndNotYetWrittenIsFoundOnceByTheNextQuestion() throws {
        var template = Array("/tmp/clavis-access-log-XXXXXX".utf8CString)
        let folder = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        let log = AccessLog(folder: folder + "/log", journal: false)
        log.record(entry("first"))

        // The answer to "second" went out; its connection has not written the entry yet when another caller asks.
        let second = log.announce(entry("second"))
        #expect(operations(log) == ["first", "second"])
        // Written by the question, it is not written again by its connection.
        log.record(second)
        let third = log.announce(entry("third"))
        log.record(third)
        #expect(operations(log) == ["first", "second", "third"])
    }
}
