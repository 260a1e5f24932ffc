import ClavisCore
import ClavisStore
import Foundation
import Testing

/// Several processes on one keychain, as in the embedded mode where there is no daemon to serialise them.
@Suite struct MultiProcessTests {
    let temporary = TemporaryHome()

    /// The `clavis-bench` executable built beside this test bundle (`swift build` builds it before `swift test`).
    private var benchExecutable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("clavis-bench")
    }

    @Test func twoProcessesAddingAndReadingAThousandItemsEachLoseNothing() throws {
        let executable = benchExecutable
        try #require(
            FileManager.default.isExecutableFile(atPath: executable.path),
            "build the executables first: swift build && swift test")
        let workers = try ["left", "right"].map { prefix in
            let process = Process()
            process.executableURL = executable
            process.arguments = ["contend-worker", temporary.home.path, prefix, "1000"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            return (process, output)
        }
        for (process, output) in workers {
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "\(text)")
            #expect(text.contains("added 1000, read 1000, errors 0"), "\(text)")
        }
        let keychain = try temporary.open()
        let all = try keychain.find(ItemQuery(itemClass: .genericPassword))
        #expect(all.count == 2000)
        #expect(try StoreInspector(temporary.home).integrityCheck() == "ok")
    }
}
