public import ClavisCore

/// An access-control object: a protection class and the authentication an item demands (Apple's `SecAccessControl`).
///
/// Immutable once created, so it may be shared between threads. Two objects with the same protection and flags are
/// equal, as `CFEqual` finds them on Apple platforms.
public final class SecAccessControl: Sendable, Hashable {
    /// The typed policy behind the object.
    public let policy: AccessControl

    init(policy: AccessControl) {
        self.policy = policy
    }

    /// True when both name the same protection class and conditions.
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool { lhs.policy == rhs.policy }

    /// Hashes the protection class and conditions.
    public func hash(into hasher: inout Hasher) { hasher.combine(policy) }
}

extension SecAccessControl: CustomStringConvertible {
    /// The protection class and flag bits, in the manner of Apple's description.
    public var description: String {
        policy.objectDescription
    }
}

/// The conditions of an access-control object, with Apple's bit values (the model's, `AccessControl.Flags`).
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    /// Apple's bits.
    public let rawValue: CFOptionFlags
    /// Wraps Apple's bits.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// The model's flags, whose bits are Apple's.
    init(_ flags: AccessControl.Flags) { rawValue = CFOptionFlags(flags.rawValue) }

    /// Biometry or the device passcode.
    public static let userPresence = SecAccessControlCreateFlags(AccessControl.Flags.userPresence)
    /// Any enrolled biometry.
    public static let biometryAny = SecAccessControlCreateFlags(AccessControl.Flags.biometryAny)
    /// Any enrolled fingerprint (the old name of `biometryAny`).
    public static let touchIDAny = SecAccessControlCreateFlags(AccessControl.Flags.biometryAny)
    /// The biometry enrolled now; invalidated when enrollment changes.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(AccessControl.Flags.biometryCurrentSet)
    /// The fingerprints enrolled now (the old name of `biometryCurrentSet`).
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(AccessControl.Flags.biometryCurrentSet)
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(AccessControl.Flags.devicePasscode)
    /// A paired watch.
    public static let watch = SecAccessControlCreateFlags(AccessControl.Flags.watch)
    /// A paired companion device (the new name of `watch`).
    public static let companion = SecAccessControlCreateFlags(AccessControl.Flags.watch)
    /// Any one condition suffices.
    public static let or = SecAccessControlCreateFlags(AccessControl.Flags.or)
    /// Every condition is needed.
    public static let and = SecAccessControlCreateFlags(AccessControl.Flags.and)
    /// Private-key operations need the conditions (keys only).
    public static let privateKeyUsage = SecAccessControlCreateFlags(AccessControl.Flags.privateKeyUsage)
    /// An application password is needed as well.
    public static let applicationPassword = SecAccessControlCreateFlags(AccessControl.Flags.applicationPassword)
}

/// Creates an access-control object from a `kSecAttrAccessible*` value and flags.
///
/// Returns `nil` and sets `error` (when given, an `NSOSStatusErrorDomain` error with `errSecParam`) for a protection
/// that is not a `kSecAttrAccessible*` value or flags Apple refuses: unknown bits, both `.or` and `.and`, or several
/// conditions without `.or` or `.and`. `privateKeyUsage` is accepted here and refused when a password item is
/// stored with it.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    do throws(KeychainError) {
        guard let code = protection as? String, let protectionClass = ProtectionClass(rawValue: code) else {
            throw KeychainError(.param, "protection is not a kSecAttrAccessible value")
        }
        let policy = AccessControl(protection: protectionClass, flags: AccessControl.Flags(rawValue: flags.rawValue))
        // The rules that hold for every class; privateKeyUsage is checked against the item's class when it is stored.
        try policy.validate(for: .key)
        return SecAccessControl(policy: policy)
    } catch {
        errorOut?.pointee = Unmanaged.passRetained(NSError(keychainError: error))
        return nil
    }
}

/// Returns the type identifier of access-control objects: what `CFGetTypeID` answers for a `SecAccessControl`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecAccessControlGetTypeID() -> CFTypeID { CoreFoundationTypeID.accessControl.rawValue }
