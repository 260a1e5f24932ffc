// Apple's keychain status codes (SecBase.h). Those the keychain answers with are `KeychainError.Code`'s, the one
// mapping, which also holds every code's message.

import ClavisCore

/// 0: No error.
public let errSecSuccess: OSStatus = 0
/// 0: No error (the classic Mac OS name, which much keychain code compares statuses with).
public let noErr: OSStatus = 0
/// -4: Function or operation not implemented.
public let errSecUnimplemented: OSStatus = KeychainError.Code.unimplemented.rawValue
/// -34: The disk is full.
public let errSecDiskFull: OSStatus = KeychainError.Code.diskFull.rawValue
/// -36: I/O error.
public let errSecIO: OSStatus = KeychainError.Code.io.rawValue
/// -49: File already open with write permission.
public let errSecOpWr: OSStatus = -49
/// -50: One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = KeychainError.Code.param.rawValue
/// -61: Write permissions error.
public let errSecWrPerm: OSStatus = -61
/// -108: Failed to allocate memory.
public let errSecAllocate: OSStatus = KeychainError.Code.allocate.rawValue
/// -128: User canceled the operation.
public let errSecUserCanceled: OSStatus = KeychainError.Code.userCanceled.rawValue
/// -909: Bad parameter or invalid state for operation.
public let errSecBadReq: OSStatus = -909
/// -2070: An internal component failed.
public let errSecInternalComponent: OSStatus = -2070
/// -4960: An unknown Core Foundation error occurred.
public let errSecCoreFoundationUnknown: OSStatus = -4960
/// -25291: No keychain is available. You may need to restart your computer.
public let errSecNotAvailable: OSStatus = KeychainError.Code.notAvailable.rawValue
/// -25292: This keychain cannot be modified.
public let errSecReadOnly: OSStatus = -25292
/// -25293: The user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = KeychainError.Code.authFailed.rawValue
/// -25294: The specified keychain could not be found.
public let errSecNoSuchKeychain: OSStatus = KeychainError.Code.noSuchKeychain.rawValue
/// -25295: The specified keychain is not a valid keychain file.
public let errSecInvalidKeychain: OSStatus = KeychainError.Code.invalidKeychain.rawValue
/// -25296: A keychain with the same name already exists.
public let errSecDuplicateKeychain: OSStatus = KeychainError.Code.duplicateKeychain.rawValue
/// -25297: The specified callback function is already installed.
public let errSecDuplicateCallback: OSStatus = -25297
/// -25298: The specified callback function is not valid.
public let errSecInvalidCallback: OSStatus = -25298
/// -25299: The specified item already exists in the keychain.
public let errSecDuplicateItem: OSStatus = KeychainError.Code.duplicateItem.rawValue
/// -25300: The specified item could not be found in the keychain.
public let errSecItemNotFound: OSStatus = KeychainError.Code.itemNotFound.rawValue
/// -25301: There is not enough memory available to use the specified item.
public let errSecBufferTooSmall: OSStatus = -25301
/// -25302: This item contains information which is too large or in a format that cannot be displayed.
public let errSecDataTooLarge: OSStatus = KeychainError.Code.dataTooLarge.rawValue
/// -25303: The specified attribute does not exist.
public let errSecNoSuchAttr: OSStatus = KeychainError.Code.noSuchAttribute.rawValue
/// -25304: The specified item is no longer valid. It may have been deleted from the keychain.
public let errSecInvalidItemRef: OSStatus = -25304
/// -25305: Unable to search the current keychain.
public let errSecInvalidSearchRef: OSStatus = -25305
/// -25306: The specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: OSStatus = KeychainError.Code.noSuchClass.rawValue
/// -25307: A default keychain could not be found.
public let errSecNoDefaultKeychain: OSStatus = -25307
/// -25308: User interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = KeychainError.Code.interactionNotAllowed.rawValue
/// -25309: The specified attribute could not be modified.
public let errSecReadOnlyAttr: OSStatus = -25309
/// -25310: This keychain was created by a different version of the system software and cannot be opened.
public let errSecWrongSecVersion: OSStatus = -25310
/// -25311: This item specifies a key size which is too large or too small.
public let errSecKeySizeNotAllowed: OSStatus = -25311
/// -25312: A required component (data storage module) could not be loaded. You may need to restart your computer.
public let errSecNoStorageModule: OSStatus = -25312
/// -25313: A required component (certificate module) could not be loaded. You may need to restart your computer.
public let errSecNoCertificateModule: OSStatus = -25313
/// -25314: A required component (policy module) could not be loaded. You may need to restart your computer.
public let errSecNoPolicyModule: OSStatus = -25314
/// -25315: User interaction is required, but is currently not allowed.
public let errSecInteractionRequired: OSStatus = -25315
/// -25316: The contents of this item cannot be retrieved.
public let errSecDataNotAvailable: OSStatus = -25316
/// -25317: The contents of this item cannot be modified.
public let errSecDataNotModifiable: OSStatus = -25317
/// -25318: One or more certificates required to validate this certificate cannot be found.
public let errSecCreateChainFailed: OSStatus = -25318
/// -25319: The specified preferences domain is not valid.
public let errSecInvalidPrefsDomain: OSStatus = -25319
/// -25320: In dark wake, no UI possible
public let errSecInDarkWake: OSStatus = -25320
/// -25240: The specified access control list is not in standard (simple) form.
public let errSecACLNotSimple: OSStatus = -25240
/// -25241: The specified policy cannot be found.
public let errSecPolicyNotFound: OSStatus = -25241
/// -25242: The specified trust setting is invalid.
public let errSecInvalidTrustSetting: OSStatus = -25242
/// -25243: The specified item has no access control.
public let errSecNoAccessForItem: OSStatus = -25243
/// -25244: Invalid attempt to change the owner of this item.
public let errSecInvalidOwnerEdit: OSStatus = -25244
/// -25245: No trust results are available.
public let errSecTrustNotAvailable: OSStatus = -25245
/// -25256: Import/Export format unsupported.
public let errSecUnsupportedFormat: OSStatus = -25256
/// -25257: Unknown format in import.
public let errSecUnknownFormat: OSStatus = -25257
/// -25258: Key material must be wrapped for export.
public let errSecKeyIsSensitive: OSStatus = -25258
/// -25259: An attempt was made to import multiple private keys.
public let errSecMultiplePrivKeys: OSStatus = -25259
/// -25260: Passphrase is required for import/export.
public let errSecPassphraseRequired: OSStatus = -25260
/// -25261: The password reference was invalid.
public let errSecInvalidPasswordRef: OSStatus = -25261
/// -25262: The Trust Settings Record was corrupted.
public let errSecInvalidTrustSettings: OSStatus = -25262
/// -25263: No Trust Settings were found.
public let errSecNoTrustSettings: OSStatus = -25263
/// -25264: MAC verification failed during PKCS12 import (wrong password?)
public let errSecPkcs12VerifyFailure: OSStatus = -25264
/// -26267: A certificate was not signed by its proposed parent.
public let errSecNotSigner: OSStatus = -26267
/// -26275: Unable to decode the provided data.
public let errSecDecode: OSStatus = KeychainError.Code.decode.rawValue
/// -67585: The required service is not available.
public let errSecServiceNotAvailable: OSStatus = -67585
/// -67586: The client ID is not correct.
public let errSecInsufficientClientID: OSStatus = -67586
/// -67587: A device reset has occurred.
public let errSecDeviceReset: OSStatus = -67587
/// -67588: A device failure has occurred.
public let errSecDeviceFailed: OSStatus = -67588
/// -26276: An internal error occurred in the Security framework.
public let errSecInternal: OSStatus = KeychainError.Code.`internal`.rawValue
/// -67602: A host name mismatch has occurred.
public let errSecHostNameMismatch: OSStatus = KeychainError.Code.hostNameMismatch.rawValue
/// -67609: The extended key usage is not valid.
public let errSecInvalidExtendedKeyUsage: OSStatus = KeychainError.Code.invalidExtendedKeyUsage.rawValue
/// -67808: A cryptographic verification failure has occurred.
public let errSecVerifyFailed: OSStatus = KeychainError.Code.verifyFailed.rawValue
/// -67818: An expired certificate was detected.
public let errSecCertificateExpired: OSStatus = KeychainError.Code.certificateExpired.rawValue
/// -67819: The certificate is not yet valid.
public let errSecCertificateNotValidYet: OSStatus = KeychainError.Code.certificateNotValidYet.rawValue
/// -67843: The trust policy was not trusted.
public let errSecNotTrusted: OSStatus = KeychainError.Code.notTrusted.rawValue
/// -34018: A required entitlement isn't present.
public let errSecMissingEntitlement: OSStatus = KeychainError.Code.missingEntitlement.rawValue
/// -34020: Client is restricted and is not permitted to perform this operation.
public let errSecRestrictedAPI: OSStatus = -34020
