import Foundation
import Testing

/// Many `clavis` processes unlocking one keychain at the same moment, through a real askpass program.
@Suite(.preparedKeychain) struct ConcurrentUnlockTests {
    @Test(arguments: [8, 16])
    func concurrentUnlocksWithTheRightPasscodeAllSucceed(count: Int) throws {
        let (home, gate) = try Self.keychainWithPasscode(answer: "7391")
        let results = try gate.releasingTogether(count) {
            try ClavisBinary.runTogether(
                count, ["find-generic-password", "-a", "me", "-s", "svc", "-w"], home: home,
                environment: ["CLAVIS_ASKPASS": gate.askpass])
        }
        for result in results {
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "kept\n")
        }
        let unlock = try ClavisBinary.run(["unlock-keychain", "-p", "7391"], home: home)
        #expect(unlock.status == 0, "no lockout after right passcodes: \(unlock.standardError)")
    }

    @Test func sixConcurrentWrongPasscodesLockOutEvenTheRightOne() throws {
        let (home, gate) = try Self.keychainWithPasscode(answer: "0000")
        let results = try gate.releasingTogether(6) {
            try ClavisBinary.runTogether(
                6, ["find-generic-password", "-a", "me", "-s", "svc", "-w"], home: home,
                environment: ["CLAVIS_ASKPASS": gate.askpass])
        }
        for result in results {
            #expect(result.status == 51, "\(result.standardError)")
            #expect(!result.standardOutput.contains("kept"))
        }
        let right = try ClavisBinary.run(["unlock-keychain", "-p", "7391"], home: home)
        #expect(right.status == 51, "six wrong passcodes lock attempts out")
        #expect(right.standardError.contains("locked out"), "\(right.standardError)")
    }

    /// A keychain with passcode 7391 holding one `WhenUnlocked` item, and an askpass program that answers
    /// `answer` once `releasingTogether` lets it.
    private static func keychainWithPasscode(answer: String) throws -> (home: String, gate: AskpassGate) {
        let folder = try makeTemporaryFolder("clavis-concurrent-unlock")
        let home = folder + "/home"
        let add = try ClavisBinary.run(["add-generic-password", "-a", "me", "-s", "svc", "-w", "kept"], home: home)
        #expect(add.status == 0, "\(add.standardError)")
        let set = try ClavisBinary.run(["set-keychain-password", "-p", "7391"], home: home)
        #expect(set.status == 0, "\(set.standardError)")
        return (home, try AskpassGate(folder: folder, answer: answer))
    }
}

/// An askpass program that holds every caller until `count` of them are waiting, then answers them all at once, so
/// the unlocks behind them race for real. It waits on two named pipes, never on a timer.
struct AskpassGate {
    let askpass: String
    private let arrivals: String
    private let gate: String

    init(folder: String, answer: String) throws {
        arrivals = folder + "/arrivals"
        gate = folder + "/gate"
        #expect(mkfifo(arrivals, 0o600) == 0 && mkfifo(gate, 0o600) == 0)
        askpass = try ClavisBinary.writeAskpass(
            in: folder, "#!/bin/sh\necho here > '\(arrivals)'\nread go < '\(gate)'\necho '\(answer)'\n")
    }

    /// Runs `body`, which starts processes that call the askpass program `count` times in all, and opens the gate
    /// once all `count` calls are waiting.
    func releasingTogether<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable () throws -> Result) throws
        -> Result
    {
        // Both pipes are held open read-write here, so neither side ever sees an end of file or blocks on open.
        let arrivalsDescriptor = open(arrivals, O_RDWR | O_CLOEXEC)
        let gateDescriptor = open(gate, O_RDWR | O_CLOEXEC)
        defer {
            close(arrivalsDescriptor)
            close(gateDescriptor)
        }
        nonisolated(unsafe) var outcome: Swift.Result<Result, any Error>?
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            outcome = Swift.Result { try body() }
            finished.signal()
        }
        var lines = 0
        var byte: UInt8 = 0
        while lines < count, read(arrivalsDescriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { lines += 1 }
        }
        // Enough lines for every waiting call and any later one.
        let release = [UInt8](repeating: UInt8(ascii: "\n"), count: count * 4)
        _ = release.withUnsafeBytes { write(gateDescriptor, $0.baseAddress, $0.count) }
        finished.wait()
        return try outcome!.get()
    }
}
