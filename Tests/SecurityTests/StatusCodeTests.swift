import ClavisTestSupport
import Foundation
import Security
import Testing

/// Every status the keychain returns has Apple's value and Apple's message.
@Suite(.preparedKeychain) struct StatusCodeTests {
    @Test(
        arguments: [
            (errSecSuccess, 0, "No error."),
            (errSecUnimplemented, -4, "Function or operation not implemented."),
            (errSecParam, -50, "One or more parameters passed to a function were not valid."),
            (errSecUserCanceled, -128, "User canceled the operation."),
            (errSecNotAvailable, -25291, "No keychain is available. You may need to restart your computer."),
            (errSecAuthFailed, -25293, "The user name or passphrase you entered is not correct."),
            (errSecDuplicateItem, -25299, "The specified item already exists in the keychain."),
            (errSecItemNotFound, -25300, "The specified item could not be found in the keychain."),
            (errSecNoSuchAttr, -25303, "The specified attribute does not exist."),
            (errSecNoSuchClass, -25306, "The specified item does not appear to be a valid keychain item."),
            (errSecInteractionNotAllowed, -25308, "User interaction is not allowed."),
            (errSecDecode, -26275, "Unable to decode the provided data."),
            (errSecInternal, -26276, "An internal error occurred in the Security framework."),
            (errSecHostNameMismatch, -67602, "A host name mismatch has occurred."),
            (errSecInvalidExtendedKeyUsage, -67609, "The extended key usage is not valid."),
            (errSecVerifyFailed, -67808, "A cryptographic verification failure has occurred."),
            (errSecCertificateExpired, -67818, "An expired certificate was detected."),
            (errSecCertificateNotValidYet, -67819, "The certificate is not yet valid."),
            (errSecNotTrusted, -67843, "The trust policy was not trusted."),
            (errSecMissingEntitlement, -34018, "A required entitlement isn't present."),
        ] as [(OSStatus, Int, String)])
    func statusHasApplesValueAndMessage(status: OSStatus, value: Int, message: String) {
        #expect(Int(status) == value)
        #expect(SecCopyErrorMessageString(status, nil) as String? == message)
    }

    @Test func unknownStatusIsNamedByNumber() {
        #expect(SecCopyErrorMessageString(-1234, nil) as String? == "OSStatus -1234")
    }
}
