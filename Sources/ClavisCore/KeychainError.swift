/// A failed keychain operation: an Apple `OSStatus` code and a one-line reason that never contains a secret.
public struct KeychainError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as one of Apple's status codes.
    public let code: Code
    /// A one-line explanation naming the item or file and the reason; never a secret or a bound value.
    public let reason: String

    /// For `authFailed` from a wrong application password, or `interactionNotAllowed` made of a store's answer
    /// (`ServiceAnswer.needsAuthentication`): the policy the caller must satisfy, so a layer that can ask the user
    /// may authenticate and retry.
    public let pendingAccessControl: AccessControl?

    /// What the pending policy's application password is for: sealing an item anew (ask for a new password, with
    /// a confirmation), or opening one (ask once; a wrong one answers `authFailed` with the policy still pending).
    public let applicationPasswordUse: ApplicationPasswordUse

    /// Creates an error with `code` and an explanation.
    public init(
        _ code: Code, _ reason: String, pendingAccessControl: AccessControl? = nil,
        applicationPasswordUse: ApplicationPasswordUse = .open
    ) {
        self.code = code
        self.reason = reason
        self.pendingAccessControl = pendingAccessControl
        self.applicationPasswordUse = applicationPasswordUse
    }

    /// Whether an application password is asked for to seal an item or to open one.
    public enum ApplicationPasswordUse: Sendable, Hashable {
        /// Opening an item sealed under it.
        case open
        /// Sealing an item under a new password.
        case seal
    }

    /// Apple's `OSStatus` for this error.
    public var osStatus: Int32 { code.rawValue }

    /// The code's meaning followed by the reason.
    public var description: String { "\(code.message) (\(code.rawValue)): \(reason)" }

    /// A keychain status code; the raw value is Apple's `OSStatus` and the only mapping to it.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// Apple's `OSStatus` value.
        public let rawValue: Int32
        /// Wraps an `OSStatus` value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `errSecUnimplemented`.
        public static let unimplemented = Code(rawValue: -4)
        /// `errSecDiskFull`.
        public static let diskFull = Code(rawValue: -34)
        /// `errSecIO`.
        public static let io = Code(rawValue: -36)
        /// `errSecParam`.
        public static let param = Code(rawValue: -50)
        /// `errSecAllocate`.
        public static let allocate = Code(rawValue: -108)
        /// `errSecUserCanceled`.
        public static let userCanceled = Code(rawValue: -128)
        /// `errSecNotAvailable`.
        public static let notAvailable = Code(rawValue: -25291)
        /// `errSecAuthFailed`.
        public static let authFailed = Code(rawValue: -25293)
        /// `errSecNoSuchKeychain`.
        public static let noSuchKeychain = Code(rawValue: -25294)
        /// `errSecInvalidKeychain`.
        public static let invalidKeychain = Code(rawValue: -25295)
        /// `errSecDuplicateKeychain`: a keychain already exists where one was to be created.
        public static let duplicateKeychain = Code(rawValue: -25296)
        /// `errSecDuplicateItem`.
        public static let duplicateItem = Code(rawValue: -25299)
        /// `errSecItemNotFound`.
        public static let itemNotFound = Code(rawValue: -25300)
        /// `errSecDataTooLarge`.
        public static let dataTooLarge = Code(rawValue: -25302)
        /// `errSecNoSuchAttr`.
        public static let noSuchAttribute = Code(rawValue: -25303)
        /// `errSecNoSuchClass`.
        public static let noSuchClass = Code(rawValue: -25306)
        /// `errSecInteractionNotAllowed`.
        public static let interactionNotAllowed = Code(rawValue: -25308)
        /// `errSecDecode`.
        public static let decode = Code(rawValue: -26275)
        /// `errSecVerifyFailed`: a signature did not verify.
        public static let verifyFailed = Code(rawValue: -67808)
        /// `errSecInternal`: an internal error of the Security framework.
        public static let `internal` = Code(rawValue: -26276)
        /// `errSecHostNameMismatch`: a certificate is not for the hostname asked for.
        public static let hostNameMismatch = Code(rawValue: -67602)
        /// `errSecInvalidExtendedKeyUsage`: a certificate's extended key usage does not allow the purpose.
        public static let invalidExtendedKeyUsage = Code(rawValue: -67609)
        /// `errSecCertificateExpired`: a certificate's validity period is over.
        public static let certificateExpired = Code(rawValue: -67818)
        /// `errSecCertificateNotValidYet`: a certificate's validity period has not begun.
        public static let certificateNotValidYet = Code(rawValue: -67819)
        /// `errSecNotTrusted`: the chain does not end at a trusted anchor.
        public static let notTrusted = Code(rawValue: -67843)
        /// `errSecMissingEntitlement`.
        public static let missingEntitlement = Code(rawValue: -34018)

        /// Apple's message text for the code.
        public var message: String {
            Self.messages[rawValue] ?? Self.additionalMessages[rawValue] ?? "OSStatus \(rawValue)"
        }

        /// The code's value and message.
        public var description: String { "\(rawValue) \(message)" }

        private static let messages: [Int32: String] = [
            0: "No error.",
            -4: "Function or operation not implemented.",
            -36: "I/O error.",
            -50: "One or more parameters passed to a function were not valid.",
            -108: "Failed to allocate memory.",
            -128: "User canceled the operation.",
            -25291: "No keychain is available. You may need to restart your computer.",
            -25293: "The user name or passphrase you entered is not correct.",
            -25294: "The specified keychain could not be found.",
            -25295: "The specified keychain is not a valid keychain file.",
            -25299: "The specified item already exists in the keychain.",
            -25300: "The specified item could not be found in the keychain.",
            -25302: "This item contains information which is too large or in a format that cannot be displayed.",
            -25303: "The specified attribute does not exist.",
            -25306: "The specified item does not appear to be a valid keychain item.",
            -25308: "User interaction is not allowed.",
            -26275: "Unable to decode the provided data.",
            -34018: "A required entitlement isn't present.",
        ]
    }
}
