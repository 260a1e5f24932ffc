#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The name of a running executable: the default application identifier and group of an unconfigured caller.
public enum ExecutableName {
    /// This process's executable's file name, from `/proc/self/exe`; the program name when that cannot be read.
    public static var current: String {
        name(ofLink: "/proc/self/exe") ?? programName
    }

    /// The last path component of the target of the symbolic link at `path` (`/proc/<pid>/exe`: a process's
    /// executable's name).
    public static func name(ofLink path: String) -> String? {
        guard let target = linkTarget(path) else { return nil }
        let name = target.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }

    /// The target of the symbolic link at `path` (such as `/proc/<pid>/exe`), or `nil`.
    public static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static var programName: String {
        let first = CommandLine.arguments.first ?? "clavis-client"
        return first.split(separator: "/").last.map(String.init) ?? first
    }
}
