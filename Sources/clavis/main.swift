import CProcessHardening
import ClavisAuthentication
import ClavisCore
import ClavisStore
@_spi(Clavis) import Security

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
    SetKeychainPasswordCommand.descriptor, ExportCommand.descriptor, ImportCommand.descriptor, ErrorCommand.descriptor,
]

let overview = """
    Usage: clavis [--json] command [command-options...]
        A keychain command line after macOS security(1), over Clavis's keychain ($CLAVIS_HOME).
        --json prints results as JSON for scripts. Secrets are printed only when asked (-w, -g).
        Exit status: 0 on success, 44 when the item is not found, otherwise the low byte of the keychain
        status (45 duplicate item, 51 wrong passcode, 36 keychain locked, 30 missing entitlement,
        206 invalid parameter); 2 for a command line that does not parse.

    Commands:
    """

func helpText(for name: String?) -> String {
    if let name, let command = commands.first(where: { $0.name == name }) { return command.usageText }
    let width = commands.map(\.name.count).max() ?? 0
    let list = commands.map {
        "    " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.summary
    }
    return overview + "\n" + list.joined(separator: "\n") + "\n    "
        + "help".padding(toLength: width, withPad: " ", startingAt: 0)
        + "  Show this list, or one command's options (clavis help COMMAND)."
}

func runClavis(_ arguments: [String]) -> Int32 {
    var arguments = arguments
    var json = false
    while let first = arguments.first, first.hasPrefix("--") {
        arguments.removeFirst()
        guard first == "--json" else {
            Console.error("clavis: unknown option \(first)\n\n" + helpText(for: nil))
            return ExitStatus.usage
        }
        json = true
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
        Console.error("clavis: unknown command \(verb)\n\n" + helpText(for: nil))
        return ExitStatus.usage
    }
    let command: any RunnableCommand
    do throws(UsageError) {
        var specs = descriptor.options
        specs.append(OptionSpec(flag: "--json", help: "print JSON"))
        let parsed = try ParsedOptions(Array(arguments.dropFirst()), specs: specs)
        json = json || parsed.has("--json")
        if !parsed.operands.isEmpty && descriptor.operands.isEmpty {
            throw UsageError(message: "unexpected argument \(parsed.operands[0])")
        }
        command = try descriptor.make(parsed)
    } catch {
        Console.error("clavis: \(error.message)\n\n" + descriptor.usageText)
        return ExitStatus.usage
    }
    // A locked keychain is unlocked first when someone can be asked (terminal or CLAVIS_ASKPASS), as `security`
    // does; elsewhere it stays locked and `WhenUnlocked` items answer errSecInteractionNotAllowed (exit 36).
    if descriptor.usesItems {
        do throws(KeychainError) {
            _ = try ClavisEmbeddedKeychain()
        } catch {
            return Console.fail("SecKeychainOpen", error)
        }
        do throws(KeychainError) {
            try ClavisUnlockIfLocked()
        } catch {
            return Console.fail("SecKeychainUnlock", error)
        }
    }
    let context = CommandContext(
        json: json, formatter: ItemFormatter(keychainPath: KeychainHome.fromEnvironment().databasePath, json: json))
    return command.run(context)
}

// Secrets pass through this process: keep them out of core dumps and debuggers attached by the same user.
_ = clavis_disable_core_dumps()
exit(runClavis(Array(CommandLine.arguments.dropFirst())))
