/// One option a command accepts, in the manner of macOS `security`: a dash and a letter, with or without a value.
struct OptionSpec: Sendable {
    /// The option as typed, such as `-a` or `--access-group`.
    var flag: String
    /// The name of the value it takes, or `nil` for a switch.
    var valueName: String?
    /// One line of help.
    var help: String
    /// True when the value may be left off at the end of the command line, to be prompted for (`-w`).
    var valueMayBePrompted = false
}

/// A command line that does not parse, with the message to show above the command's usage.
struct UsageError: Error {
    var message: String
}

/// The options given to one command: values by flag, switches present, and any operands.
struct ParsedOptions {
    /// Values of the options that take one; an empty array entry means "prompt for it".
    private(set) var values: [String: String] = [:]
    /// Options given without a value: switches, and prompted options left at the end.
    private(set) var switches: Set<String> = []
    /// Arguments that are not options.
    private(set) var operands: [String] = []

    /// Parses `arguments` against `specs`.
    init(_ arguments: [String], specs: [OptionSpec]) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument.count > 1, Int(argument) == nil else {
                operands.append(argument)
                continue
            }
            guard let spec = specs.first(where: { $0.flag == argument }) else {
                throw UsageError(message: "unknown option \(argument)")
            }
            guard spec.valueName != nil else {
                switches.insert(argument)
                continue
            }
            if index < arguments.count {
                values[argument] = arguments[index]
                index += 1
            } else if spec.valueMayBePrompted {
                switches.insert(argument)
            } else {
                throw UsageError(message: "option \(argument) needs a value")
            }
        }
    }

    /// The value of `flag`, if given.
    func value(_ flag: String) -> String? { values[flag] }

    /// True when the switch `flag` was given (or a promptable option was left without a value).
    func has(_ flag: String) -> Bool { switches.contains(flag) }
}

/// The usage text of a command, generated from its option declarations.
func usage(name: String, summary: String, specs: [OptionSpec], operands: String = "") -> String {
    var lines = [
        "Usage: clavis \(name)\(specs.isEmpty ? "" : " [options...]")\(operands.isEmpty ? "" : " \(operands)")"
    ]
    lines.append("    \(summary)")
    if !specs.isEmpty { lines.append("Options:") }
    for spec in specs {
        let left = spec.flag + (spec.valueName.map { " \($0)" } ?? "")
        lines.append(
            "    " + left.padded(to: 22) + "  " + spec.help)
    }
    return lines.joined(separator: "\n")
}

extension String {
    /// The text followed by spaces up to `width` characters (unchanged when it is as long already).
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
