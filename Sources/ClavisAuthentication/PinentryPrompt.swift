public import ClavisCore
import ClavisSystem

/// The daemon's trusted passcode prompt: a `pinentry` program (GnuPG's convention), spoken to in the Assuan
/// protocol, so that the client asking for an authentication never sees the passcode.
///
/// Per passcode: the program is started, told where the user sits through `OPTION` lines built from the client's
/// hints (`ttyname`, `ttytype`, `display`, `lc-ctype`, `lc-messages`; nothing else is passed), given the description
/// (`SETDESC`), the prompt and the previous failure (`SETERROR`), and asked `GETPIN`; its `D` line is the passcode
/// (percent-escaped), `ERR 83886179` a cancel. Any other answer, or a program that cannot be started, means the
/// prompt cannot reach the user.
public struct PinentryPrompt: TrustedPasscodePrompt {
    /// The program's path.
    public let program: String

    /// The hints passed to the program, as GnuPG's agent passes them.
    public static let hintNames: Set<String> = ["ttyname", "ttytype", "display", "lc-ctype", "lc-messages"]
    /// Assuan's error code for a canceled prompt (`GPG_ERR_CANCELED` in the pinentry source).
    static let canceledCode = "83886179"
    /// The longest passcode accepted from the program.
    static let maximumPasscode = 4096

    /// A prompt using `program` (a path, or a name searched on `PATH`); `nil` when no such executable exists.
    public init?(program: String) {
        guard let path = ChildProcess.find(program) else { return nil }
        self.program = path
    }

    /// Three passcodes per request, as GnuPG's agent asks.
    public var attempts: Int { 3 }

    public func readPasscode(_ prompt: PasscodePrompt, error: String?) throws(KeychainError) -> SecureBytes {
        let unreachable = KeychainError(.interactionNotAllowed, "the passcode prompt (\(program)) cannot ask the user")
        guard let child = ChildProcess.start(program, []) else { throw unreachable }
        defer {
            child.write(Array("BYE\n".utf8))
            child.closeInput()
            child.wait()
        }
        func command(_ line: String) throws(KeychainError) {
            guard child.write(Array((line + "\n").utf8)) else { throw unreachable }
            guard let reply = child.readLine(), reply.starts(with: Array("OK".utf8)) else { throw unreachable }
        }
        guard let greeting = child.readLine(), greeting.starts(with: Array("OK".utf8)) else { throw unreachable }
        for (name, value) in prompt.hints.sorted(by: { $0.key < $1.key }) where Self.hintNames.contains(name) {
            // An option the program does not know is its business; the prompt goes on without it.
            guard child.write(Array("OPTION \(name)=\(Self.escaped(value))\n".utf8)), child.readLine() != nil else {
                throw unreachable
            }
        }
        try command("SETTITLE Clavis")
        try command("SETDESC " + Self.escaped(prompt.description))
        try command("SETPROMPT Passcode:")
        if let error { try command("SETERROR " + Self.escaped(error)) }
        guard child.write(Array("GETPIN\n".utf8)) else { throw unreachable }
        var passcode: [UInt8] = []
        defer { passcode.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        while var line = child.readLine() {
            defer { line.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            if line.starts(with: Array("D ".utf8)) {
                guard Self.unescape(line.dropFirst(2), into: &passcode) else { throw unreachable }
            } else if line == Array("OK".utf8) || line.starts(with: Array("OK ".utf8)) {
                return SecureBytes(passcode)
            } else if line.starts(with: Array("ERR ".utf8)) {
                if line.dropFirst(4).starts(with: Array(Self.canceledCode.utf8)) {
                    throw KeychainError(.userCanceled, "the passcode prompt was canceled")
                }
                throw unreachable
            } else if line.starts(with: Array("INQUIRE".utf8)) {
                guard child.write(Array("CAN\n".utf8)) else { throw unreachable }
            }
            // Status ("S") and comment ("#") lines carry nothing the keychain needs.
        }
        throw unreachable
    }

    /// `text` as an Assuan argument: `%`, carriage return and line feed percent-escaped.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Appends the percent-decoded `data` to `bytes`; false for a malformed escape or a passcode too long.
    static func unescape(_ data: ArraySlice<UInt8>, into bytes: inout [UInt8]) -> Bool {
        var index = data.startIndex
        while index < data.endIndex {
            guard bytes.count < maximumPasscode else { return false }
            if data[index] == UInt8(ascii: "%") {
                guard index + 2 < data.endIndex, let high = hexValue(data[index + 1]),
                    let low = hexValue(data[index + 2])
                else { return false }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(data[index])
                index += 1
            }
        }
        return true
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
