#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call's `errno`, with the system's text for it: the one place that turns a code into words.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value.
    public let code: Int32

    /// The error `code`.
    public init(_ code: Int32) { self.code = code }

    /// The system's text for the error (`strerror`), such as "No such file or directory".
    public var description: String { Self.text(code) }

    /// The system's text for the `errno` value `code`.
    public static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
