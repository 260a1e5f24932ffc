import ClavisCore
import ClavisIdentity

/// Who sees what through the Secret Service. Its clients expect to share: a user runs `secret-tool lookup` for what
/// a mail client stored, and Python's `keyring` for what `secret-tool` stored. So by default every Secret Service
/// client's items go to one group, `SecretServiceItem.sharedAccessGroup` (`org.freedesktop.secrets`), which every
/// client holds beside its own groups. A registered app that should not share registers
/// `"clavis.secret-service.shared": false`: its items then go to its own default group, and it sees its own groups
/// only; the shared clients do not see its items.
enum SecretServiceSharing {
    /// The caller's entitlements as the Secret Service applies them: the shared group first (the default, where new
    /// items go) unless the caller opted out.
    static func adjust(_ entitlements: inout Entitlements) {
        guard entitlements.sharesSecretService else { return }
        entitlements.accessGroups.removeAll { $0 == SecretServiceItem.sharedAccessGroup }
        entitlements.accessGroups.insert(SecretServiceItem.sharedAccessGroup, at: 0)
    }
}
