// Values of `kSecAttrAccessible`: the protection classes, with the codes Apple stores.

/// Readable only while the keychain is unlocked; may travel in backups.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable after the first unlock, also when locked again; may travel in backups.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Always readable (deprecated by Apple, not recommended).
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// Readable while unlocked, only while a passcode is set; erased when the passcode is removed.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Readable only while unlocked; never leaves this device.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable after the first unlock; never leaves this device.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Always readable; never leaves this device (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"
