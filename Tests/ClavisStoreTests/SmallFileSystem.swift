import ClavisCore
import Foundation
import Testing

/// A 2 MiB tmpfs mounted for one test (tests run as root), unmounted and removed when released: a file system that
/// can be filled up, freed again, or remounted read-only.
final class SmallFileSystem {
    let mountPoint: String
    /// A keychain home inside the file system.
    let home: KeychainHome

    init() throws {
        var template = Array("/tmp/clavis-small-fs-XXXXXX".utf8CString)
        mountPoint = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
        home = KeychainHome(path: mountPoint + "/home")
    }

    deinit {
        try? Self.run("/bin/umount", [mountPoint])
        rmdir(mountPoint)
    }

    private var fillerPath: String { mountPoint + "/filler" }

    /// Writes zeros to a file until the file system has no room left.
    func fillUp() throws {
        let descriptor = open(fillerPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        var failure: Int32 = 0
        while failure == 0 {
            if chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) < 0 { failure = errno }
        }
        try #require(failure == ENOSPC, "filling stopped on errno \(failure), not ENOSPC")
    }

    /// Removes what `fillUp` wrote.
    func makeRoom() {
        unlink(fillerPath)
    }

    /// Remounts the file system read-only (`true`) or read-write again.
    func remount(readOnly: Bool) throws {
        try Self.run("/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", mountPoint])
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try #require(process.terminationStatus == 0, "\(program) \(arguments.joined(separator: " ")): \(text)")
    }
}
