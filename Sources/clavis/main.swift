import ClavisClient
import ClavisCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every verb, in the order `help` lists them.
let commands: [CommandDescriptor] = [
    AddPasswordCommand.descriptor(.generic), FindPasswordCommand.descriptor(.generic),
    DeletePasswordCommand.descriptor(.generic), AddPasswordCommand.descriptor(.internet),
    FindPasswordCommand.descriptor(.internet), DeletePasswordCommand.descriptor(.internet),
    DumpKeychainCommand.descriptor, UnlockKeychainCommand.descriptor, LockKeychainCommand.descriptor,
    SetKeychainPasswordCommand.descriptor, ExportCommand.descriptor, ImportCommand.descriptor,
    ImportSecretServiceCommand.descriptor, StatusCommand.descriptor, CreateKeychainCommand.descriptor,
    AppCommand.descriptor, LogCommand.descriptor, ErrorCommand.descriptor, GenerateKeyCommand.descriptor,
    SignatureCommand.descriptor(verifying: false), SignatureCommand.descriptor(verifying: true),
    FindCertificateCommand.descriptor, FindIdentityCommand.descriptor, SyncCommandLine.descriptor,
]

/// The version `clavis --version` prints.
let version = "0.1.0"

let overview = """
    Usage: clavis [--json] command [command-options...]
           clavis --help | --version | help [command]
        A keychain command line after macOS security(1), over Clavis's keychain ($CLAVIS_HOME).
        --json prints results as JSON for scripts. Secrets are printed only when asked (-w, -g).
        A secret given as an option's value (-w VALUE, -X, -p, -P) is visible to other users in ps:
        let clavis prompt for it, or pipe it on standard input, instead.
        Exit status: 0 on success, 44 when the item is not found, otherwise the low byte of the keychain
        status (45 duplicate item, 51 wrong passcode, 36 keychain locked, 30 missing entitlement,
        206 invalid parameter); 2 for a command line that does not parse.

    Commands:
    """

func helpText(for name: String?) -> String {
    if let name, let command = commands.first(where: { $0.name == name }) { return command.usageText }
    let width = commands.map(\.name.count).max() ?? 0
    let list = commands.map {
        "    " + $0.name.padded(to: width) + "  " + $0.summary
    }
    return overview + "\n" + list.joined(separator: "\n") + "\n    "
        + "help".padded(to: width)
        + "  Show this list, or one command's options (clavis help COMMAND, or clavis COMMAND --help)."
}

func runClavis(_ arguments: [String]) -> Int32 {
    var arguments = arguments
    var json = false
    while let first = arguments.first, first.hasPrefix("--") {
        arguments.removeFirst()
        switch first {
        case "--json": json = true
        case "--help":
            Console.out(helpText(for: nil))
            return ExitStatus.success
        case "--version":
            Console.out("clavis \(version)")
            return ExitStatus.success
        default:
            Console.error("clavis: unknown option \(first)\nRun 'clavis --help' for the commands and options.")
            return ExitStatus.usage
        }
    }
    guard let verb = arguments.first else {
        Console.error(helpText(for: nil))
        return ExitStatus.usage
    }
    if verb == "help" || verb == "-h" {
        Console.out(helpText(for: arguments.dropFirst().first))
        return ExitStatus.success
    }
    guard let descriptor = commands.first(where: { $0.name == verb }) else {
        Console.error("clavis: unknown command \(verb)\nRun 'clavis --help' for the commands.")
        return ExitStatus.usage
    }
    if arguments.dropFirst().contains("--help") {
        Console.out(descriptor.usageText)
        return ExitStatus.success
    }
    guard let (command, asksForJSON) = makeCommand(descriptor, arguments.dropFirst()) else {
        return ExitStatus.usage
    }
    json = json || asksForJSON
    if descriptor.usesItems, let failure = unlockIfSomeoneCanBeAsked() { return failure }
    let context = CommandContext(
        json: json,
        formatter: ItemFormatter(keychainPath: ClavisConfiguration.current.home.databasePath, json: json))
    return command.run(context)
}

/// The command `arguments` (the verb's options and operands) make of `descriptor`, and whether they ask for JSON;
/// `nil` once a usage error is reported.
func makeCommand(_ descriptor: CommandDescriptor, _ arguments: ArraySlice<String>)
    -> (command: any RunnableCommand, json: Bool)?
{
    do throws(UsageError) {
        var specs = descriptor.options
        specs.append(OptionSpec(flag: "--json", help: "print JSON"))
        specs.append(OptionSpec(flag: "--help", help: "show this help"))
        let parsed = try ParsedOptions(Array(arguments), specs: specs)
        if !parsed.operands.isEmpty && descriptor.operands.isEmpty {
            throw UsageError(message: "unexpected argument \(parsed.operands[0])")
        }
        return (try descriptor.make(parsed), parsed.has("--json"))
    } catch {
        Console.error(
            "clavis: \(error.message)\n\(descriptor.usageLine)\nRun 'clavis \(descriptor.name) --help' for its options."
        )
        return nil
    }
}

/// Unlocks a locked keychain first when someone can be asked (terminal or CLAVIS_ASKPASS), as `security` does;
/// elsewhere it stays locked and `WhenUnlocked` items answer errSecInteractionNotAllowed (exit 36). The exit status
/// of a failure, or `nil`.
func unlockIfSomeoneCanBeAsked() -> Int32? {
    let client: KeychainClient
    do throws(KeychainError) {
        client = try KeychainClient()
    } catch {
        return Console.fail("SecKeychainOpen", error)
    }
    do throws(KeychainError) {
        try client.unlockAsking(otherwise: KeychainError(.interactionNotAllowed, "the keychain stays as it is"))
    } catch  where error.code == .interactionNotAllowed {
        // Nothing to unlock, or nobody to ask: the items' own answers say what is closed.
    } catch {
        return Console.fail("SecKeychainUnlock", error)
    }
    return nil
}

// Secrets pass through this process: keep them out of core dumps and debuggers attached by the same user.
ProcessHardening.disableCoreDumps()
exit(runClavis(Array(CommandLine.arguments.dropFirst())))
