package import ClavisCore
package import ClavisCrypto
package import FoundationEssentials

extension Keychain {
    /// Writes every item that may travel (protection classes without `ThisDeviceOnly`) into a backup sealed under
    /// `passphrase`, for restoring on another device or after a reinstall.
    ///
    /// `ThisDeviceOnly` items and items whose access control needs an authentication stay behind (counted in the
    /// summary). Needs the keychain unlocked.
    /// - Parameters:
    ///   - kdf: how the passphrase becomes a key; by default scrypt calibrated to about 100 ms.
    ///   - accessGroups: the caller's access groups: only their items are written; `nil` takes every group.
    /// - Throws: `interactionNotAllowed` while the keychain is not unlocked, `param` for an empty passphrase.
    package func exportBackup(passphrase: SecureBytes, kdf: PasscodeKDF? = nil, accessGroups: [String]? = nil)
        throws(KeychainError) -> (archive: Data, summary: BackupSummary)
    {
        guard lockState == .unlocked else {
            throw KeychainError(.interactionNotAllowed, "the keychain must be unlocked to export a backup")
        }
        var summary = BackupSummary(exported: 0, thisDeviceOnly: 0, accessControlled: 0)
        var entries: [BackupArchive.Entry] = []
        for itemClass in ItemClass.allCases where itemClass.isStorable {
            let everything = ItemQuery(
                itemClass: itemClass, synchronizable: .any, accessGroups: accessGroups, limit: .all)
            var withSecrets = everything
            withSecrets.returnsSecret = true
            withSecrets.unauthenticatedItems = .skip
            // Unlocked, no item's class is closed, and the items a proof would open are skipped.
            let all = try find(everything).resultOrThrow()
            let readable = try find(withSecrets).resultOrThrow()
            for item in readable {
                if item.protection.isThisDeviceOnly {
                    summary.thisDeviceOnly += 1
                } else if let secret = item.secret {
                    entries.append(.init(itemClass: itemClass, attributes: item.attributes, secret: secret))
                }
            }
            summary.accessControlled += all.count - readable.count
        }
        summary.exported = entries.count
        do {
            let archive = try BackupArchive.seal(
                entries, passphrase: passphrase, kdf: kdf ?? PasscodeKDF.calibrated())
            return (Data(archive), summary)
        } catch {
            throw KeychainError(converting: error)
        }
    }

    /// Adds the items of a backup made by `exportBackup`, keeping their attributes and access groups; items whose
    /// primary key already exists are left as they are.
    ///
    /// - Parameter accessGroups: the caller's access groups; a backup holding an item of any other group is
    ///   refused whole. `nil` accepts every group.
    /// - Throws: `authFailed` for a wrong passphrase or an altered backup, `decode` for a file that is not a
    ///   backup, `interactionNotAllowed` when an item's protection class is closed, `missingEntitlement` (naming
    ///   the groups) for items of groups the caller lacks.
    package func importBackup(_ archive: Data, passphrase: SecureBytes, accessGroups: [String]? = nil)
        throws(KeychainError) -> RestoreSummary
    {
        let entries: [BackupArchive.Entry]
        do {
            entries = try BackupArchive.open(Array(archive), passphrase: passphrase)
        } catch {
            throw KeychainError(converting: error)
        }
        if let accessGroups {
            var foreign: [String] = []
            for entry in entries {
                let group = entry.attributes[.accessGroup]?.stringValue ?? ""
                if !accessGroups.contains(group) && !foreign.contains(group) { foreign.append(group) }
            }
            guard foreign.isEmpty else {
                let names = foreign.map { "'\($0)'" }.joined(separator: ", ")
                throw KeychainError(
                    .missingEntitlement,
                    "the backup holds items of access group \(names), not in this process's entitlements;"
                        + " nothing was restored")
            }
        }
        var summary = RestoreSummary(restored: 0, alreadyPresent: 0)
        for entry in entries {
            do throws(KeychainError) {
                let answer = try add(
                    NewItem(itemClass: entry.itemClass, attributes: entry.attributes, secret: entry.secret))
                if case .needsUnlock = answer {
                    // A restore asks nobody: it fails, naming the class that is closed.
                    let protection = entry.attributes[.accessible]?.stringValue ?? ProtectionClass.default.rawValue
                    throw KeychainError(
                        .interactionNotAllowed,
                        "protection class \(protection) is closed while the keychain is \(lockState.rawValue)")
                }
                _ = try answer.resultOrThrow()
                summary.restored += 1
            } catch  where error.code == .duplicateItem {
                summary.alreadyPresent += 1
            }
        }
        return summary
    }
}
