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

    /// Starts one `contend-worker` per prefix on `home`; each adds then reads `count` items.
    private func startWorkers(_ prefixes: [String], count: Int, home: KeychainHome) throws -> [(Process, Pipe)] {
        let executable = benchExecutable
        try #require(
            FileManager.default.isExecutableFile(atPath: executable.path),
            "build the executables first: swift build && swift test")
        return try prefixes.map { prefix in
            let process = Process()
            process.executableURL = executable
            process.arguments = ["contend-worker", home.path, prefix, String(count)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            return (process, output)
        }
    }

    /// Waits for the workers and checks that each added and read all `count` of its items.
    private func expectEveryWorkerSucceeded(_ workers: [(Process, Pipe)], count: Int) {
        for (process, output) in workers {
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0, "\(text)")
            #expect(text.contains("added \(count), read \(count), errors 0"), "\(text)")
        }
    }

    @Test func twoProcessesAddingAndReadingAThousandItemsEachLoseNothing() throws {
        let workers = try startWorkers(["left", "right"], count: 1000, home: temporary.home)
        expectEveryWorkerSucceeded(workers, count: 1000)
        let keychain = try temporary.open()
        let all = try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow()
        #expect(all.count == 2000)
        #expect(try StoreInspector(temporary.home).integrityCheck() == "ok")
    }

    /// Processes that open a keychain nobody has created yet all end up in the one that one of them creates.
    @Test func processesCreatingAKeychainAtOnceShareOne() throws {
        for round in 0..<8 {
            let home = KeychainHome(path: temporary.home.path + "-round-\(round)")
            let workers = try startWorkers(["a", "b", "c"], count: 3, home: home)
            expectEveryWorkerSucceeded(workers, count: 3)
            let all = try Keychain(home: home).find(ItemQuery(itemClass: .genericPassword)).resultOrThrow()
            #expect(all.count == 9)
        }
    }
}
