import ClavisTestSupport
import Foundation

/// Runs a command on a pseudo-terminal (util-linux `script`), as a user at a terminal would, answering prompts.
///
/// Each answer is typed only once its prompt has appeared, as a person would type it.
func runOnTerminal(
    _ command: [String], environment: [String: String], answers: [(prompt: String, reply: String)],
    timeoutSeconds: Double = 20
) throws -> (status: Int32, transcript: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    process.arguments = ["--quiet", "--return", "--command", quoted, "/dev/null"]
    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { _, new in new }
    process.environment = merged
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()

    let transcript = Transcript()
    output.fileHandleForReading.readabilityHandler = { handle in transcript.append(handle.availableData) }
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    var searchFrom = 0
    for answer in answers {
        while Date() < deadline {
            // One snapshot per look: the transcript grows on another thread, and indices of one string are not
            // valid in the next.
            let text = transcript.text
            let start = text.index(text.startIndex, offsetBy: min(searchFrom, text.count))
            if let range = text.range(of: answer.prompt, range: start..<text.endIndex) {
                searchFrom = text.distance(from: text.startIndex, to: range.upperBound)
                break
            }
            usleep(10_000)
        }
        input.fileHandleForWriting.write(Data((answer.reply + "\r").utf8))
    }
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    output.fileHandleForReading.readabilityHandler = nil
    transcript.append(output.fileHandleForReading.readDataToEndOfFile())
    try? input.fileHandleForWriting.close()
    return (process.terminationStatus, transcript.text)
}

/// What a terminal showed, collected from another thread.
private final class Transcript: @unchecked Sendable {  // every access goes through `lock`
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) {
        lock.lock()
        data.append(more)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
