internal import CChildProcess
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A program run with pipes on its standard input and output, standard error passed through or discarded: the
/// helpers authentication runs (an askpass program, pinentry) and the programs clavis-bench times. The one way
/// Clavis starts a program (clavisd's private daemon in the testing kit starts through the same C function).
///
/// Started with `posix_spawn` (`clavis_spawn`) from the root folder (the caller's folder may be one the user cannot
/// enter), with an empty signal mask and default signal dispositions (a daemon ignores `SIGPIPE`; its helpers must
/// not inherit that). Arguments never carry a secret: what a helper returns comes back on its standard output, which
/// callers receiving a secret zero after use.
package final class ChildProcess {
    /// What a finished program wrote on standard output and how it ended.
    package struct Outcome {
        /// The exit status; a program killed by a signal reports a non-zero status.
        package var status: Int32
        /// Everything it wrote on standard output. Callers that receive a secret copy it and zero this.
        package var output: Data

        /// A program that ended with `status` having written `output`.
        package init(status: Int32, output: Data) {
            self.status = status
            self.output = output
        }
    }

    /// The longest output kept from a helper: more is a misbehaving program, not an answer.
    static let maximumOutput = 1 << 20

    private let pid: pid_t
    private var input: Int32
    private let output: Int32
    private var buffered: [UInt8] = []
    private var exitStatus: Int32?

    private init(pid: pid_t, input: Int32, output: Int32) {
        self.pid = pid
        self.input = input
        self.output = output
    }

    deinit {
        closeInput()
        close(output)
        buffered.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Starts `path` with `arguments`, its standard error discarded when `discardingErrors`; `nil` when it cannot
    /// be started.
    package static func start(_ path: String, _ arguments: [String], discardingErrors: Bool = false) -> ChildProcess? {
        let argv = ([path] + arguments).map { strdup($0) }
        defer { for argument in argv { free(argument) } }
        var input: Int32 = -1
        var output: Int32 = -1
        var pid: pid_t = 0
        let error = (argv + [nil]).withUnsafeBufferPointer { arguments in
            clavis_spawn(path, arguments.baseAddress, discardingErrors ? 1 : 0, &input, &output, &pid)
        }
        guard error == 0 else { return nil }
        return ChildProcess(pid: pid, input: input, output: output)
    }

    /// Writes `bytes` to the program's standard input; false when it stopped reading.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        guard input >= 0 else { return false }
        return bytes.withUnsafeBytes { DescriptorOutput.writeAll($0, to: input) }
    }

    /// Closes the program's standard input (it reads end of file).
    package func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// The next line the program writes, without its newline; `nil` at end of output or past `maximumOutput`.
    /// Callers receiving a secret zero the line after use.
    package func readLine() -> [UInt8]? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffered[..<newline])
                let rest = buffered.count - newline - 1
                buffered.withUnsafeMutableBufferPointer { buffer in
                    if rest > 0 {
                        UnsafeMutableRawBufferPointer(buffer).copyMemory(
                            from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[(newline + 1)...]))
                    }
                    for index in rest..<buffer.count { buffer[index] = 0 }
                }
                buffered.removeLast(buffered.count - rest)
                return line
            }
            guard buffered.count < Self.maximumOutput, fill() else { return nil }
        }
    }

    /// Everything the program writes until it closes its output (at most `maximumOutput` bytes).
    package func readToEnd() -> [UInt8] {
        while buffered.count < Self.maximumOutput, fill() {}
        defer { buffered.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let all = buffered
        buffered = []
        return all
    }

    /// Reads what the program wrote next into the buffer; false at end of output or on an error.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { chunk.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        let count = SystemCall.retrying { chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) } }
        guard count > 0 else { return false }
        buffered.append(contentsOf: chunk[..<count])
        return true
    }

    /// Waits for the program to end: its exit status, or 128 plus the signal that killed it.
    @discardableResult
    package func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard SystemCall.retrying({ waitpid(pid, &status, 0) }) >= 0 else {
            exitStatus = -1
            return -1
        }
        let low = status & 0x7f
        let ended = low == 0 ? (status >> 8) & 0xff : 128 + low
        exitStatus = ended
        return ended
    }

    /// Starts `path` with `arguments` in the background, its standard input and output closed and its standard error
    /// `errorDescriptor`: its process id, or the `errno` of why it could not start. The caller waits for it
    /// (`waitForExit`).
    package static func startInBackground(_ path: String, _ arguments: [String], errorDescriptor: Int32)
        -> Result<Int32, SystemError>
    {
        let argv = ([path] + arguments).map { strdup($0) }
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let error = (argv + [nil]).withUnsafeBufferPointer { arguments in
            clavis_spawn_background(path, arguments.baseAddress, errorDescriptor, &pid)
        }
        return error == 0 ? .success(pid) : .failure(SystemError(error))
    }

    /// Waits for the process `pid` (a child of this one) to end.
    package static func waitForExit(_ pid: Int32) {
        var status: Int32 = 0
        _ = SystemCall.retrying { waitpid(pid, &status, 0) }
    }

    /// Runs `path` with `arguments` to its end, `input` on its standard input (then end of file), its standard error
    /// discarded when `discardingErrors`; `nil` when it cannot be started.
    package static func run(
        _ path: String, _ arguments: [String], input: [UInt8] = [], discardingErrors: Bool = false
    ) -> Outcome? {
        guard let child = start(path, arguments, discardingErrors: discardingErrors) else { return nil }
        if !input.isEmpty { child.write(input) }
        child.closeInput()
        var output = child.readToEnd()
        defer { output.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return Outcome(status: child.wait(), output: Data(output))
    }

    /// `run`, with a program that could not be started reported as a shell reports it: status 127, no output.
    package static func runToEnd(
        _ path: String, _ arguments: [String], input: [UInt8] = [], discardingErrors: Bool = false
    ) -> Outcome {
        run(path, arguments, input: input, discardingErrors: discardingErrors) ?? Outcome(status: 127, output: Data())
    }

    /// The path of the executable `name`: `name` itself when it contains a slash, else the first match on `PATH`.
    package static func find(_ name: String) -> String? {
        guard !name.isEmpty else { return nil }
        if name.contains("/") { return isExecutableFile(name) ? name : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where isExecutableFile("\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        return nil
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }
}
