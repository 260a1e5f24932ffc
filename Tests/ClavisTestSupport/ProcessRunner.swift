import Foundation
import Synchronization

/// Runs a program to completion and captures what it wrote.
public struct ProcessOutput: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    /// A run that ended with `status` having written `standardOutput` and `standardError`.
    public init(status: Int32, standardOutput: String, standardError: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}

/// Runs `path` with `arguments`, the test process's environment plus `environment`, and `input` on stdin.
public func runProcess(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
    currentDirectory: String? = nil
) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    merged.removeValue(forKey: "CLAVIS_COMPAT")
    merged.removeValue(forKey: "CLAVIS_SOCKET")
    merged.merge(environment) { _, new in new }
    process.environment = merged
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let output = Pipe()
    let errors = Pipe()
    let stdin = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var errorData = Data()
    group.enter()
    DispatchQueue.global().async {
        errorData = errors.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData, as: UTF8.self))
}

/// Writes an entitlements property list and returns its path.
public func writeEntitlements(in folder: String, name: String, applicationIdentifier: String, groups: [String]) throws
    -> String
{
    let path = folder + "/\(name).entitlements"
    var plist: [String: Any] = ["application-identifier": applicationIdentifier]
    if !groups.isEmpty { plist["keychain-access-groups"] = groups }
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    try data.write(to: URL(fileURLWithPath: path))
    return path
}

/// Runs the openssl command line in `folder` and returns its result.
public func runOpenSSL(_ arguments: [String], in folder: String) throws -> ProcessOutput {
    try runProcess("/usr/bin/openssl", arguments, currentDirectory: folder)
}

/// A fresh temporary folder.
///
/// The folder is removed when the test process exits (`TemporaryFolders`), whatever the test did with it.
public func makeTemporaryFolder(_ prefix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    TemporaryFolders.removeAtExit(path)
    return path
}

/// The temporary folders the tests made, removed when the process exits, so that runs leave nothing in /tmp.
public enum TemporaryFolders {
    private static let made = Mutex<[String]>([])

    /// Removes `path` and what it holds when the process exits.
    public static func removeAtExit(_ path: String) {
        made.withLock { folders in
            if folders.isEmpty { atexit { TemporaryFolders.removeAll() } }
            folders.append(path)
        }
    }

    private static func removeAll() {
        for path in made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// The repository's root folder (this file is Tests/SecurityTests/ProcessRunner.swift).
public let repositoryRoot: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent().path

/// Reads `pipe` until what arrived contains `text` (the line a program prints once it is ready), and returns all it
/// read; the text is missing from it when the pipe ended first.
public func readUntil(_ text: String, on pipe: Pipe) -> String {
    var said = Data()
    while !String(decoding: said, as: UTF8.self).contains(text) {
        let chunk = pipe.fileHandleForReading.availableData
        guard !chunk.isEmpty else { break }
        said += chunk
    }
    return String(decoding: said, as: UTF8.self)
}

/// A test's set-up that failed (a user that could not be made, a file that could not be given away), and why.
public struct SetupFailure: Error, CustomStringConvertible {
    public var description: String

    /// A failure described by `description`.
    public init(_ description: String) {
        self.description = description
    }
}
