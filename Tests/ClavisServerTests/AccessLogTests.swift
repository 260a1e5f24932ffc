import ClavisCore
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import Testing

@testable import ClavisServer

/// clavisd writes a request's access-log entry after the caller has its answer; a question to the log still sees
/// every entry whose answer went out before it was asked.
@Suite struct AccessLogTests {
    private func entry(_ operation: String) -> AccessLogEntry {
        AccessLogEntry(
            time: Date(), uid: 1000, pid: 42, executable: "/usr/bin/app", application: "app", operation: operation,
            status: 0, outcome: "done")
    }

    @Test func aQuestionWaitsForTheEntriesAnnouncedBeforeIt() throws {
        var template = Array("/tmp/clavis-access-log-XXXXXX".utf8CString)
        let folder = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        let log = AccessLog(folder: folder + "/log", journal: false)
        log.record(entry("first"))

        // The answer to "second" is out (announced), its entry not yet written, when another caller asks.
        let announcement = log.announce()
        let asking = DispatchSemaphore(value: 0)
        let answered = DispatchSemaphore(value: 0)
        let answer = Mutex(Data())
        DispatchQueue.global().async {
            asking.signal()
            let lines = log.lines(matching: AccessLogQuery(), viewer: 0)
            answer.withLock { $0 = lines }
            answered.signal()
        }
        asking.wait()
        log.record(entry("second"), announced: announcement)
        answered.wait()
        let lines = answer.withLock { $0 }
        let operations = String(decoding: lines, as: UTF8.self).split(separator: "\n").compactMap {
            AccessLogEntry(jsonLine: Array($0.utf8))?.operation
        }
        #expect(operations == ["first", "second"])

        // Once written, nothing is waited for.
        #expect(log.lines(matching: AccessLogQuery(), viewer: 0).count == lines.count)
    }
}
