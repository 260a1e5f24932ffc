import ClavisCore

/// Where a secret comes from: the option's value, bytes given in hexadecimal, all of standard input (`-`), or a
/// prompt (one line of stdin when not on a terminal).
struct SecretSource {
    /// The value given on the command line.
    var value: String?
    /// True when the option was given without a value, to be prompted for.
    var prompted: Bool
    /// Bytes given as hexadecimal (`-X`).
    private var bytes: [UInt8]?
    /// True when the secret comes length-prefixed on standard input (`--stdin-framed`, as pam_clavis sends it).
    var framed = false

    /// `--stdin-framed`: the passcodes come on standard input, each a 32-bit big-endian length and then its bytes.
    static let framedOption = OptionSpec(
        flag: "--stdin-framed",
        help: "read the passcodes from standard input, each as a 4-byte big-endian length and its bytes (pam_clavis)")

    init(_ options: ParsedOptions, flag: String) {
        value = options.value(flag)
        prompted = options.has(flag)
    }

    /// A secret given as bytes.
    init(bytes: [UInt8]) {
        self.bytes = bytes
        prompted = false
    }

    /// The secret's bytes: the value (`-` reads all of stdin), the answer to the prompt, or empty when the option
    /// was not given.
    ///
    /// - Parameter confirming: on a terminal, ask a second time and accept only the same answer (a new secret).
    func read(prompt: String, confirming: Bool = false) -> SecureBytes? {
        if let bytes { return SecureBytes(bytes) }
        if framed { return Console.readFramedSecret(limit: KeychainLimits.secretBytes) }
        if value == "-" { return Console.readAllInput(limit: KeychainLimits.secretBytes) }
        if let value { return SecureBytes(Array(value.utf8)) }
        guard prompted else { return SecureBytes([]) }
        return Console.readSecret(prompt: prompt, confirming: confirming)
    }

    /// Says that the secret `what` was needed and how to give it, for a prompt that got no answer (end of input,
    /// or a pipe with nothing on it), and returns the exit status for a command line that lacks an input.
    static func reportMissing(_ what: String, flag: String) -> Int32 {
        if Console.isInteractive {
            Console.error("clavis: no \(what) was entered")
        } else {
            Console.error(
                "clavis: no \(what) given: give it with \(flag), type it at a terminal, or pipe it as one line on "
                    + "standard input")
        }
        return ExitStatus.usage
    }

    /// The bytes of an even-length string of hexadecimal digits (an optional `0x` first), or `nil`.
    static func bytes(fromHex text: String) -> [UInt8]? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
