import ClavisTestSupport
import Foundation
import Testing

/// The documents a clone of the repository needs are in it: no link leaves the repository.
@Suite(.preparedKeychain) struct DocumentationLinkTests {
    @Test func everyDocumentTheReadmeNamesIsInTheRepository() throws {
        let documents = ["README.md", "docs/design-notes.md", "docs/DESIGN.md"]
        for document in documents {
            let text = try String(contentsOfFile: repositoryRoot + "/" + document, encoding: .utf8)
            #expect(!text.contains("../shared"), "\(document) points outside the repository")
            // Every Markdown file named in backquotes or as a link target exists, relative to the root or to
            // the document's folder.
            let folder = (document as NSString).deletingLastPathComponent
            let pattern = try NSRegularExpression(pattern: "[`(]([A-Za-z0-9_./-]+\\.md)[`)]")
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                let candidates = [repositoryRoot + "/" + name, repositoryRoot + "/" + folder + "/" + name]
                #expect(
                    candidates.contains { FileManager.default.fileExists(atPath: $0) },
                    "\(document) names \(name), which the repository lacks")
            }
        }
    }
}
