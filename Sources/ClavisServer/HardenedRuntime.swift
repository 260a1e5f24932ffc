import ClavisIdentity
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The counterpart of Apple's hardened runtime, which refuses `DYLD_INSERT_LIBRARIES` in signed apps: a process is
/// treated as the registered app it runs only while no other code can run as it.
///
/// Refused (served as unregistered, the access log saying why), all read from the process itself, never its word:
/// - a process being traced (`TracerPid` in /proc/PID/status): a tracer runs its code as the process;
/// - one started with a dynamic-loader override (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `LD_AUDIT`) or an OpenSSL code path
///   (`OPENSSL_MODULES`, `OPENSSL_ENGINES`) in the environment it was started with;
/// - one with executable code mapped (/proc/PID/maps) from a file that a user outside `trusted` could change or
///   replace (`FileReplacement`, looked at in the process's own view of the file system), from a deleted file, or
///   from a file that is not the one at its path there (device and inode); the main executable of a pinned
///   registration is checked by its digest instead.
///
/// Checked once, when the process is identified. Not covered (README, "Threat model"): root, or a kernel exploit;
/// code the app itself writes into anonymous memory and runs; and what a process of the app's user did to a dumpable
/// app before it was identified (traced it from its start and let go) or does after (attaches to it): a registered
/// app should make itself non-dumpable, as Clavis's own clients do for the system daemon.
enum HardenedRuntime {
    /// The environment variables that make a process run code it did not link.
    static let codeLoadingVariables = [
        "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "OPENSSL_MODULES", "OPENSSL_ENGINES",
    ]

    /// Why the process whose /proc folder is `process` may not be treated as a registered app, or `nil` when it may.
    /// `pinnedExecutable` is the device and inode of a main executable already checked by its digest.
    static func refusal(
        of process: ProcessDirectory, pid: Int32, pinnedExecutable: FileIdentity?, trusted: Set<UInt32>
    ) -> String? {
        guard let status = process.contents(of: "status"), let environment = process.startingEnvironment(pid: pid),
            let maps = process.contents(of: "maps")
        else { return "the process cannot be inspected" }
        if let tracer = tracer(inStatus: status), tracer != 0 { return "it is traced by process \(tracer)" }
        if let variable = codeLoadingVariable(inEnvironment: environment) {
            return "it was started with \(variable) set"
        }
        return mappedCodeRefusal(maps: maps, pid: pid, pinnedExecutable: pinnedExecutable, trusted: trusted)
    }

    /// The `TracerPid` of a /proc/PID/status text.
    static func tracer(inStatus status: [UInt8]) -> Int32? {
        for line in status.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("TracerPid:") else { continue }
            return Int32(String(text.dropFirst("TracerPid:".count).filter { $0 != " " && $0 != "\t" }))
        }
        return nil
    }

    /// The first of `codeLoadingVariables` set to a non-empty value in a /proc/PID/environ text.
    static func codeLoadingVariable(inEnvironment environment: [UInt8]) -> String? {
        for entry in environment.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "="), text.index(after: equals) != text.endIndex else { continue }
            let name = String(text[..<equals])
            if codeLoadingVariables.contains(name) { return name }
        }
        return nil
    }

    /// Why a mapping of executable code in a /proc/PID/maps text disqualifies the process, or `nil`.
    static func mappedCodeRefusal(
        maps: [UInt8], pid: Int32, pinnedExecutable: FileIdentity?, trusted: Set<UInt32>
    ) -> String? {
        var checked: Set<String> = []
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            // start-end perms offset device inode path
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].count >= 3, fields[1][fields[1].startIndex + 2] == UInt8(ascii: "x")
            else { continue }
            let path = String(decoding: fields[5].drop { $0 == UInt8(ascii: " ") }, as: UTF8.self)
            guard path.hasPrefix("/"), checked.insert(path).inserted else { continue }
            if path.hasSuffix(" (deleted)") { return "it runs code from a deleted file, \(path)" }
            guard let mapped = FileIdentity(mapsDevice: fields[3], inode: fields[4]) else {
                return "it maps \(path) from a file it does not name"
            }
            if mapped == pinnedExecutable { continue }
            let root = "/proc/\(pid)/root"
            if let reason = FileReplacement.reason(path, trusted: trusted, root: root) {
                return "it runs code from \(path), which another user could change: \(reason)"
            }
            var info = stat()
            guard stat(root + path, &info) == 0, FileIdentity(info) == mapped else {
                return "it runs code from a file that is not the one at \(path)"
            }
        }
        return nil
    }
}
