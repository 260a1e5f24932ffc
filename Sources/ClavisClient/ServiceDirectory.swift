public import ClavisCore
import ClavisEmbedded
import ClavisIdentity
import Synchronization

/// Finds the keychain service a configuration names: the embedded keychain in its folder, for the caller its
/// entitlements describe. (The daemon, when configured, will be found here too.)
///
/// Entitlements files are read once per path and kept; the keychain is opened once per folder and kept until the
/// process exits (`OpenKeychains`). A failure (an unreadable folder or entitlements file) is not kept, so a later
/// call tries again.
public enum ServiceDirectory {
    /// The service for `configuration`.
    ///
    /// - Throws: `missingEntitlement` for an unreadable entitlements file; the keychain's own errors when it cannot
    ///   be opened.
    public static func service(for configuration: ClavisConfiguration) throws(KeychainError) -> any KeychainService {
        let entitlements = try entitlements(path: configuration.entitlementsPath)
        let keychain = try OpenKeychains.keychain(home: configuration.home)
        let reason =
            "no daemon is configured; keychain folder from \(configuration.homeSource)"
            + (configuration.entitlementsPath == nil ? "" : ", entitlements from CLAVIS_ENTITLEMENTS")
        return EmbeddedKeychainService(keychain: keychain, entitlements: entitlements, reason: reason)
    }

    private static func entitlements(path: String?) throws(KeychainError) -> Entitlements {
        if let known = loaded.withLock({ $0[path] }) { return known }
        let entitlements = try Entitlements.load(path: path)
        loaded.withLock { $0[path] = entitlements }
        return entitlements
    }

    private static let loaded = Mutex<[String?: Entitlements]>([:])
}
