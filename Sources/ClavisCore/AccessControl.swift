public import FoundationEssentials

/// An item's access-control policy (`kSecAttrAccessControl`): its protection class and the authentication it demands.
///
/// Stored with the item in the `accc` attribute as `encoded`; enforced by the access-control layer.
public struct AccessControl: Sendable, Hashable {
    /// When the item can be read at all.
    public var protection: ProtectionClass
    /// What a caller must prove to use the item.
    public var flags: Flags
    /// For `.biometryCurrentSet`: the biometric enrolment state when the item was stored; a match made under any
    /// other enrolment no longer satisfies the policy.
    public var boundBiometryEnrolment: Data?

    /// Creates a policy; `validate()` checks that the flags make sense.
    public init(protection: ProtectionClass, flags: Flags, boundBiometryEnrolment: Data? = nil) {
        self.protection = protection
        self.flags = flags
        self.boundBiometryEnrolment = boundBiometryEnrolment
    }

    /// The conditions of a policy, with the bit values of Apple's `SecAccessControlCreateFlags`.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The bits, as Apple defines them.
        public let rawValue: UInt
        /// Wraps Apple's bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Biometry or the device passcode.
        public static let userPresence = Flags(rawValue: 1 << 0)
        /// Any enrolled biometry, also after enrollment changes.
        public static let biometryAny = Flags(rawValue: 1 << 1)
        /// The biometry enrolled when the item was stored; invalidated when enrollment changes.
        public static let biometryCurrentSet = Flags(rawValue: 1 << 3)
        /// The device passcode.
        public static let devicePasscode = Flags(rawValue: 1 << 4)
        /// A paired companion device (Apple's watch).
        public static let watch = Flags(rawValue: 1 << 5)
        /// Any one of the conditions suffices.
        public static let or = Flags(rawValue: 1 << 14)
        /// Every condition is needed.
        public static let and = Flags(rawValue: 1 << 15)
        /// The private key may be used for signing and key exchange (keys only).
        public static let privateKeyUsage = Flags(rawValue: 1 << 30)
        /// An application-supplied password is needed as well.
        public static let applicationPassword = Flags(rawValue: 1 << 31)

        /// Every bit Apple defines.
        public static let known: Flags = [
            .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .watch, .or, .and, .privateKeyUsage,
            .applicationPassword,
        ]
    }

    /// Apple's description of the `SecAccessControl` holding this policy: `<SecAccessControl: ak;flags=0x3>`.
    public var objectDescription: String {
        "<SecAccessControl: \(protection.rawValue);flags=0x\(String(flags.rawValue, radix: 16))>"
    }

    /// Checks the flags: only Apple's bits, and not both `.or` and `.and`.
    public func validate() throws(KeychainError) {
        guard flags.isSubset(of: .known) else {
            throw KeychainError(.param, "access control has unknown flag bits")
        }
        guard !flags.isSuperset(of: [.or, .and]) else {
            throw KeychainError(.param, "access control cannot combine .or and .and")
        }
    }

    /// The bytes stored in `accc`: the tag `acl2`, the protection code's length and bytes, the flags big-endian,
    /// then the bound biometric enrolment's length (0 when none) and bytes.
    public var encoded: Data {
        var bytes = Array("acl2".utf8)
        let code = Array(protection.rawValue.utf8)
        bytes.append(UInt8(code.count))
        bytes += code
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: UInt64(flags.rawValue) >> UInt64(shift)))
        }
        let enrolment = Array(boundBiometryEnrolment ?? Data()).prefix(255)
        bytes.append(UInt8(enrolment.count))
        bytes += enrolment
        return Data(bytes)
    }

    /// Decodes the bytes of `encoded` (and of the earlier `acl1` form, which had no enrolment).
    ///
    /// - Throws: `decode` when the bytes are not a policy this type wrote.
    public init(encoded data: Data) throws(KeychainError) {
        let bytes = Array(data)
        let version = bytes.count > 5 ? String(decoding: bytes.prefix(4), as: UTF8.self) : ""
        guard version == "acl1" || version == "acl2" else {
            throw KeychainError(.decode, "access control blob has no acl1/acl2 header")
        }
        let length = Int(bytes[4])
        let flagsEnd = 5 + length + 8
        guard bytes.count >= flagsEnd,
            let protection = ProtectionClass(rawValue: String(decoding: bytes[5..<(5 + length)], as: UTF8.self))
        else {
            throw KeychainError(.decode, "access control blob is malformed")
        }
        let raw = bytes[(5 + length)..<flagsEnd].reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        var enrolment: Data?
        if version == "acl1" {
            guard bytes.count == flagsEnd else { throw KeychainError(.decode, "access control blob is malformed") }
        } else {
            guard bytes.count > flagsEnd, bytes.count == flagsEnd + 1 + Int(bytes[flagsEnd]) else {
                throw KeychainError(.decode, "access control blob is malformed")
            }
            enrolment = bytes[flagsEnd] == 0 ? nil : Data(bytes[(flagsEnd + 1)...])
        }
        self.init(protection: protection, flags: Flags(rawValue: UInt(raw)), boundBiometryEnrolment: enrolment)
    }
}
