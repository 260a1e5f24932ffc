/// A file path split at its last slash, as the files Clavis writes are opened: through their folder, by name.
public struct PathParts: Sendable, Hashable {
    /// The folder: "." for a bare name, "/" for a file at the root.
    public let folder: String
    /// The last component.
    public let name: String

    /// The parts of `path`.
    public init(_ path: String) {
        guard let slash = path.lastIndex(of: "/") else {
            folder = "."
            name = path
            return
        }
        folder = slash == path.startIndex ? "/" : String(path[..<slash])
        name = String(path[path.index(after: slash)...])
    }
}
