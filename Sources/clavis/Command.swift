import ClavisCore

/// One `clavis` verb: its declaration (name, options, help) apart from running it.
struct CommandDescriptor: Sendable {
    /// The verb, such as `find-generic-password`.
    var name: String
    /// One line saying what it does.
    var summary: String
    /// The options it accepts; help and parsing both come from these.
    var options: [OptionSpec]
    /// The operands it takes, for the usage line.
    var operands: String = ""
    /// True for verbs that read or write items (they need the keychain unlocked).
    var usesItems = true
    /// Validates the parsed options into a runnable command.
    var make: @Sendable (ParsedOptions) throws(UsageError) -> any RunnableCommand

    /// The usage text.
    var usageText: String { usage(name: name, summary: summary, specs: options, operands: operands) }

    /// The usage text's first line, shown under a command line that does not parse.
    var usageLine: String { usageText.split(separator: "\n").first.map(String.init) ?? "Usage: clavis \(name)" }
}

/// A validated command, ready to run.
protocol RunnableCommand {
    /// Runs and returns the exit status.
    func run(_ context: CommandContext) -> Int32
}

/// What every command may use: the output mode and the formatter.
struct CommandContext {
    /// True for `--json`.
    var json: Bool
    /// Prints items.
    var formatter: ItemFormatter

    /// Reports a failed keychain operation with its reason (on stderr, or in the JSON object) and returns the exit
    /// status.
    func fail(_ call: String, _ failure: KeychainError) -> Int32 {
        guard json else { return Console.fail(call, failure) }
        Console.out(ItemFormatter.jsonText(.object(Self.failureObject(call, failure))))
        return ExitStatus.forFailure(failure)
    }

    /// The JSON object describing a failed call: its status, Apple's message, the call and the reason (empty when
    /// nothing failed).
    static func failureObject(_ call: String, _ failure: KeychainError?) -> [String: JSONValue] {
        guard let failure else { return [:] }
        var object: [String: JSONValue] = [
            "status": .integer(failure.osStatus), "message": .string(failure.code.message), "call": .string(call),
        ]
        if !failure.reason.isEmpty { object["reason"] = .string(failure.reason) }
        return object
    }
}
