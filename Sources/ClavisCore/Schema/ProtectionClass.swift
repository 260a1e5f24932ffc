/// When an item can be read: Apple's data-protection classes, with the codes Apple stores in `pdmn`.
public enum ProtectionClass: String, Sendable, CaseIterable, Hashable {
    /// `kSecAttrAccessibleWhenUnlocked`.
    case whenUnlocked = "ak"
    /// `kSecAttrAccessibleAfterFirstUnlock`.
    case afterFirstUnlock = "ck"
    /// `kSecAttrAccessibleAlways`.
    case always = "dk"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case whenUnlockedThisDeviceOnly = "aku"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecAttrAccessibleAlwaysThisDeviceOnly`.
    case alwaysThisDeviceOnly = "dku"
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`.
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// Apple's name of the class without its `kSecAttrAccessible` prefix (`WhenUnlockedThisDeviceOnly`), as
    /// `clavis` shows and reads it: the case's name, capitalized.
    public var name: String {
        let caseName = "\(self)"
        return caseName.prefix(1).uppercased() + caseName.dropFirst()
    }

    /// The class an item gets when the caller names none.
    public static let `default` = ProtectionClass.whenUnlocked

    /// True for the classes whose items never leave this device (no sync, no backup elsewhere).
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock, .always: false
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly,
            .whenPasscodeSetThisDeviceOnly:
            true
        }
    }

    /// True when the class key is wrapped with the passcode as well as the device key (when a passcode is set).
    public var isPasscodeBound: Bool {
        switch self {
        case .always, .alwaysThisDeviceOnly: false
        default: true
        }
    }

    /// True when locking the keychain closes this class again.
    public var closesOnLock: Bool {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: true
        default: false
        }
    }

    /// True when the class opens in `state`.
    public func isOpen(in state: LockState) -> Bool {
        switch state {
        case .unlocked: true
        case .locked: !closesOnLock
        case .beforeFirstUnlock: !isPasscodeBound
        }
    }
}

/// The keychain's lock state, as on a device: closed until the first unlock, then unlocked or locked.
public enum LockState: String, Sendable, Hashable {
    /// No unlock since the store was opened: only `Always` classes open.
    case beforeFirstUnlock = "before-first-unlock"
    /// Every class opens.
    case unlocked
    /// Locked again: `WhenUnlocked` classes are closed, `AfterFirstUnlock` stay open.
    case locked
}
