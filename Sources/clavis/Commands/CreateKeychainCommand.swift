import ClavisClient
import ClavisCore
import FoundationEssentials

/// `create-keychain`: creates the keychain in `$CLAVIS_HOME` with its device key bound as asked (`--device-key tpm`
/// seals it to the TPM at `CLAVIS_TPM_TCTI`, under a policy on `--tpm-pcrs` when given; `file` keeps it in
/// `device.key`), then says where it is and what its key is bound to, as `status` does. The binding is recorded by the
/// folder (`device.tpm` or `device.key`) and never changes afterwards. A daemon creates its keychains as its own
/// `--device-key` option says, so this works only where no daemon serves the keychain.
struct CreateKeychainCommand: RunnableCommand {
    /// `--device-key`: `tpm` or `file`; `nil` takes `CLAVIS_DEVICE_KEY` (default `file`).
    var deviceKey: String?
    /// `--tpm-pcrs`: the PCRs a TPM-sealed key is bound to; `nil` takes `CLAVIS_TPM_PCRS`.
    var pcrs: String?

    static let descriptor = CommandDescriptor(
        name: "create-keychain",
        summary: "Create the keychain, its device key sealed to the TPM (--device-key tpm) or kept in a file.",
        options: [
            OptionSpec(
                flag: "--device-key", valueName: "tpm|file",
                help: "bind the device key to the TPM at CLAVIS_TPM_TCTI, or keep it in a file (default file)"),
            OptionSpec(
                flag: "--tpm-pcrs", valueName: "LIST",
                help:
                    "with tpm: seal to these SHA-256 PCRs' values (such as 0,7); the keychain opens only while they hold"
            ),
        ],
        usesItems: false
    ) { (parsed) throws(UsageError) in
        let command = CreateKeychainCommand(deviceKey: parsed.value("--device-key"), pcrs: parsed.value("--tpm-pcrs"))
        do throws(KeychainError) {
            _ = try command.configuration().deviceKeyOptions()
        } catch {
            throw UsageError(message: error.reason)
        }
        return command
    }

    func run(_ context: CommandContext) -> Int32 {
        let configuration = configuration()
        let status: KeychainStatus
        do throws(KeychainError) {
            if configuration.daemonSocket == nil, let existing = Self.existingKeychain(in: configuration.home) {
                throw KeychainError(
                    .duplicateKeychain, "a keychain already exists in \(configuration.home.path) (\(existing))")
            }
            status = try KeychainClient(configuration: configuration).status()
            if case .daemon(let socket) = status.location {
                throw KeychainError(
                    .duplicateKeychain,
                    "clavisd at \(socket) serves this keychain and creates it as its own --device-key option says")
            }
        } catch {
            return context.fail("SecKeychainCreate", error)
        }
        let location = configuration.home.path
        if context.json {
            Console.out(
                ItemFormatter.jsonText(
                    .object(["keychain": .string(location), "deviceKey": .string(status.deviceKey.rawValue)])))
        } else {
            Console.out("keychain: \"\(ItemFormatter.printable(location))\"\ndevice key: \(status.deviceKey.rawValue)")
        }
        return ExitStatus.success
    }

    /// The process's configuration with this command's options in place of the environment's.
    private func configuration() -> ClavisConfiguration {
        var configuration = ClavisConfiguration.current
        if let deviceKey { configuration.deviceKeyBinding = deviceKey }
        if let pcrs { configuration.tpmPCRs = pcrs }
        return configuration
    }

    /// What shows a keychain already in `home` (a device key, sealed or not, or a database), or `nil`.
    private static func existingKeychain(in home: KeychainHome) -> String? {
        let files = FileManager.default
        if files.fileExists(atPath: home.sealedDeviceKeyPath) { return "its device key is sealed to a TPM" }
        if files.fileExists(atPath: home.deviceKeyPath) { return "its device key is a file" }
        let size = (try? files.attributesOfItem(atPath: home.databasePath)[.size] as? Int) ?? 0
        return size > 0 ? "it has a database" : nil
    }
}
