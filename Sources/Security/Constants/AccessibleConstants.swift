// Values of `kSecAttrAccessible`: the protection classes, with the codes Apple stores (`ProtectionClass`).

import ClavisCore

/// Readable only while the keychain is unlocked; may travel in backups.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = ProtectionClass.whenUnlocked.constant
/// Readable after the first unlock, also when locked again; may travel in backups.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = ProtectionClass.afterFirstUnlock.constant
/// Always readable (deprecated by Apple, not recommended).
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = ProtectionClass.always.constant
/// Readable while unlocked, only while a passcode is set; erased when the passcode is removed.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = ProtectionClass
    .whenPasscodeSetThisDeviceOnly.constant
/// Readable only while unlocked; never leaves this device.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = ProtectionClass
    .whenUnlockedThisDeviceOnly.constant
/// Readable after the first unlock; never leaves this device.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = ProtectionClass
    .afterFirstUnlockThisDeviceOnly.constant
/// Always readable; never leaves this device (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = ProtectionClass.alwaysThisDeviceOnly
    .constant
