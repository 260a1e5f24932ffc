public import ClavisCore
public import ClavisStore
public import FoundationEssentials

/// For `clavis export`: a backup of the embedded keychain's items in this process's access groups only (its
/// entitlements, as for every keychain call), sealed under `passphrase`.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisExportBackup(passphrase: SecureBytes) throws(KeychainError) -> (
    archive: Data, summary: Keychain.BackupSummary
) {
    let groups = try Entitlements.current().accessGroups
    return try ClavisEmbeddedKeychain().exportBackup(passphrase: passphrase, accessGroups: groups)
}

/// For `clavis import`: restores a backup into the embedded keychain, refusing it (`errSecMissingEntitlement`,
/// naming the groups) when it holds items of groups this process's entitlements lack.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisImportBackup(_ archive: Data, passphrase: SecureBytes) throws(KeychainError)
    -> Keychain.RestoreSummary
{
    let groups = try Entitlements.current().accessGroups
    return try ClavisEmbeddedKeychain().importBackup(archive, passphrase: passphrase, accessGroups: groups)
}
