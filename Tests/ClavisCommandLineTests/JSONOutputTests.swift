import ClavisTestSupport
import Foundation
import Testing

/// `clavis --json` gives scripts each item's persistent reference.
@Suite(.preparedKeychain) struct JSONOutputTests {
    @Test func findAndDumpGiveThePersistentReference() throws {
        let home = try makeTemporaryFolder("clavis-json") + "/home"
        #expect(
            try ClavisBinary.run(["add-generic-password", "-a", "me", "-s", "json", "-w", "x"], home: home).status == 0)
        let find = try ClavisBinary.run(["--json", "find-generic-password", "-s", "json"], home: home)
        let found = try JSONSerialization.jsonObject(with: Data(find.standardOutput.utf8)) as? [String: Any]
        let reference = (found?["persistentReference"] as? String).flatMap { Data(base64Encoded: $0) }
        #expect(reference?.count == 20)
        #expect(reference.map { String(decoding: $0.prefix(4), as: UTF8.self) } == "genp")
        let dump = try ClavisBinary.run(["--json", "dump-keychain"], home: home)
        let items = try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [[String: Any]]
        #expect(items?.first?["persistentReference"] as? String == found?["persistentReference"] as? String)
    }
}
