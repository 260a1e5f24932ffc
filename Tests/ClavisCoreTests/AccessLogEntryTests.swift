import ClavisCore
import Foundation
import Testing

/// The access log's lines are written by hand (not by JSONEncoder, for speed): they must be JSON that reads back as
/// the same entry, whatever bytes a path or an identifier holds.
@Suite struct AccessLogEntryTests {
    private func entry(time: Date, executable: String?) -> AccessLogEntry {
        AccessLogEntry(
            time: time, uid: 1000, pid: 4321, executable: executable, application: "TEAM.com.example.app",
            operation: "find", itemClass: "genp", accessGroups: ["TEAM.a", "group \"b\""],
            items: ["Z2VucB3d3i11uMUKnm5SyE0zDCE="], status: -25300, outcome: "not found")
    }

    @Test func aLineIsOneLineOfJSONThatReadsBackAsTheEntry() throws {
        let time = Date(timeIntervalSince1970: 1_764_581_400.125)
        let awkward = "/opt/app \"quoted\"\\back\nslash\u{1}\té/bin"
        let line = entry(time: time, executable: awkward).jsonLine
        #expect(!line.contains(UInt8(ascii: "\n")))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["executable"] as? String == awkward)
        #expect(object["class"] as? String == "genp")
        #expect(object["accessGroups"] as? [String] == ["TEAM.a", "group \"b\""])
        #expect(object["status"] as? Int == -25300)
        let back = try #require(AccessLogEntry(jsonLine: line))
        #expect(back == entry(time: time, executable: awkward))
        // JSONEncoder's form of the same entry reads back the same too.
        let encoded = try JSONEncoder().encode(back)
        #expect(AccessLogEntry(jsonLine: Array(encoded)) == back)
        #expect(entry(time: time, executable: nil).jsonLine.count < line.count)
        #expect(AccessLogEntry(jsonLine: Array("{\"time\":".utf8)) == nil, "a torn line is no entry")
    }

    @Test func timesAreISO8601InUTCWithMilliseconds() {
        let cases: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (1_709_251_199.999, "2024-02-29T23:59:59.999Z"), (-1, "1969-12-31T23:59:59.000Z"),
            (4_102_444_800, "2100-01-01T00:00:00.000Z"), (1_764_581_400.125, "2025-12-01T09:30:00.125Z"),
        ]
        for (seconds, text) in cases {
            #expect(entry(time: Date(timeIntervalSince1970: seconds), executable: nil).timeText == text)
        }
    }
}
