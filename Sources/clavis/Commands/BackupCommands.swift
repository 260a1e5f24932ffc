import ClavisClient
import ClavisCore
import ClavisSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `export`: writes the items that may leave this device into a backup sealed under a passphrase; with `-t certs`
/// or `-t pubkeys`, the certificates or the keys' public halves as PEM instead (`PublicItemExport`).
struct ExportCommand: RunnableCommand {
    var path: String
    var passphrase: SecretSource
    /// `--force`: replace an existing file (never one of the keychain's own).
    var replacesExisting: Bool
    /// `-t`: what public items to write as PEM, or `nil` for a backup.
    var publicItems: PublicItemExport.Kind?

    static let descriptor = CommandDescriptor(
        name: "export",
        summary: "Write a passphrase-sealed backup of the items that may leave this device (no ThisDeviceOnly items).",
        options: [
            OptionSpec(flag: "-o", valueName: "file", help: "the backup file to write (mode 0600)"),
            OptionSpec(flag: "-P", valueName: "passphrase", help: "the backup passphrase (prompted when left off)"),
            OptionSpec(flag: "--force", help: "replace FILE if it exists (a link there is replaced, not followed)"),
            OptionSpec(flag: "-t", valueName: "type", help: "certs or pubkeys: write those as PEM (no passphrase)"),
        ]
    ) { (parsed) throws(UsageError) in
        guard let path = parsed.value("-o") else { throw UsageError(message: "export needs -o file") }
        var publicItems: PublicItemExport.Kind?
        if let type = parsed.value("-t") {
            guard let kind = PublicItemExport.Kind(rawValue: type.lowercased()) else {
                throw UsageError(message: "-t takes certs or pubkeys, not '\(type.prefix(16))'")
            }
            publicItems = kind
        }
        var passphrase = SecretSource(parsed, flag: "-P")
        passphrase.prompted = passphrase.value == nil && publicItems == nil
        return ExportCommand(
            path: path, passphrase: passphrase, replacesExisting: parsed.has("--force"), publicItems: publicItems)
    }

    func run(_ context: CommandContext) -> Int32 {
        let file = BackupFile(path: path, keychain: ClavisConfiguration.current.home)
        do throws(KeychainError) {
            try file.checkWritable(replacing: replacesExisting)
        } catch {
            return context.fail("SecItemExport", error)
        }
        if let publicItems {
            return PublicItemExport(kind: publicItems).run(context, to: file, replacing: replacesExisting)
        }
        guard let secret = passphrase.read(prompt: "passphrase for the backup: ", confirming: true) else {
            return SecretSource.reportMissing("backup passphrase", flag: "-P")
        }
        do throws(KeychainError) {
            let (archive, summary) = try KeychainClient().exportBackup(passphrase: secret)
            try file.save(archive, replacing: replacesExisting)
            if context.json {
                Console.out(
                    ItemFormatter.jsonText([
                        "exported": .integer(summary.exported), "thisDeviceOnly": .integer(summary.thisDeviceOnly),
                        "accessControlled": .integer(summary.accessControlled),
                    ]))
            } else {
                Console.out(
                    "exported \(summary.exported) items to \(path); left on this device: "
                        + "\(summary.thisDeviceOnly) ThisDeviceOnly, \(summary.accessControlled) access-controlled")
            }
            return ExitStatus.success
        } catch {
            return context.fail("SecItemExport", error)
        }
    }
}

/// `import`: adds the items of a backup made by `export`, skipping those already present; or the keys and
/// certificates of a PEM or DER file (`KeyFileImport`), or the identities of a PKCS#12 archive (`ArchiveImport`).
struct ImportCommand: RunnableCommand {
    var path: String
    var passphrase: SecretSource
    /// The tag and label given to imported keys (and the label to certificates).
    var tag: String?
    var label: String?

    static let descriptor = CommandDescriptor(
        name: "import",
        summary: "Restore a backup made by export (existing items are kept), or add the keys and certificates of a PEM "
            + "or DER file.",
        options: [
            OptionSpec(
                flag: "-P", valueName: "passphrase",
                help: "the backup's or PKCS#12 archive's passphrase (prompted when left off)"),
            OptionSpec(flag: "-T", valueName: "tag", help: "the application tag of the keys a PEM or DER file adds"),
            OptionSpec(flag: "-l", valueName: "label", help: "the label of what a PEM or DER file adds"),
        ], operands: "FILE"
    ) { (parsed) throws(UsageError) in
        guard parsed.operands.count == 1 else { throw UsageError(message: "import needs one file") }
        var passphrase = SecretSource(parsed, flag: "-P")
        passphrase.prompted = passphrase.value == nil
        return ImportCommand(
            path: parsed.operands[0], passphrase: passphrase, tag: parsed.value("-T"), label: parsed.value("-l"))
    }

    /// True when the file at `path` starts with a backup's magic line.
    private static func beginsLikeABackup(_ path: String) -> Bool {
        guard let file = try? FileDescriptor(opening: path, O_RDONLY) else { return false }
        let magic = Array("CLAVIS-BACKUP 1\n".utf8)
        var start = [UInt8](repeating: 0, count: magic.count)
        let count = start.withUnsafeMutableBytes { read(file.rawValue, $0.baseAddress, $0.count) }
        return count == magic.count && start == magic
    }

    func run(_ context: CommandContext) -> Int32 {
        // A file that is not a backup (which begins with its magic line) is read, into zeroing memory, for the
        // keys and certificates it may hold: they are small, a megabyte at most.
        if !Self.beginsLikeABackup(path) {
            if let file = try? FileDescriptor(opening: path, O_RDONLY) {
                let contents = try? SecureBytes.read(from: file.rawValue, limit: 1 << 20)
                do throws(KeychainError) {
                    guard let contents = contents ?? nil else { throw KeychainError(.decode, "\(path) is empty") }
                    if let entries = try KeyFileImport.entries(of: contents) {
                        return KeyFileImport(tag: tag, label: label).add(entries, context)
                    }
                    return ArchiveImport(contents: contents, label: label).run(passphrase: passphrase, context)
                } catch {
                    return context.fail("SecItemImport", error)
                }
            }
        }
        let archive: Data
        do throws(KeychainError) {
            archive = try BackupFile.read(path)
        } catch {
            return context.fail("SecItemImport", error)
        }
        guard let secret = passphrase.read(prompt: "passphrase for the backup: ") else {
            return SecretSource.reportMissing("backup passphrase", flag: "-P")
        }
        do throws(KeychainError) {
            let summary = try KeychainClient().importBackup(archive, passphrase: secret)
            if context.json {
                Console.out(
                    ItemFormatter.jsonText([
                        "restored": .integer(summary.restored), "alreadyPresent": .integer(summary.alreadyPresent),
                    ]))
            } else {
                Console.out("restored \(summary.restored) items; \(summary.alreadyPresent) were already present")
            }
            return ExitStatus.success
        } catch {
            return context.fail("SecItemImport", error)
        }
    }
}
