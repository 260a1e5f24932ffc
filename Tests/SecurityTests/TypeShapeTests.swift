import ClavisTestSupport
import Foundation
import Security
import Testing

/// Code written for Apple's framework compiles unchanged: these are the shapes real keychain code uses.
@Suite(.preparedKeychain) struct TypeShapeTests {
    @Test func constantsPassWhereAnyObjectIsExpected() {
        let asObject: AnyObject = kSecClassGenericPassword
        let asTypeRef: CFTypeRef = kSecAttrAccessibleWhenUnlocked
        #expect(asObject as? String == "genp")
        #expect(asTypeRef as? String == "ak")
    }

    @Test func constantsConvertToStringBothWays() {
        #expect(kSecAttrAccount as String == "acct")
        #expect(String(kSecAttrService) == "svce")
        let literal = "v_Data" as CFString
        #expect(literal == kSecValueData)
    }

    @Test func secItemFunctionsHaveApplesTypes() {
        let copy: (CFDictionary, UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus = SecItemCopyMatching
        let add: (CFDictionary, UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus = SecItemAdd
        let update: (CFDictionary, CFDictionary) -> OSStatus = SecItemUpdate
        let delete: (CFDictionary) -> OSStatus = SecItemDelete
        let message: (OSStatus, UnsafeMutableRawPointer?) -> CFString? = SecCopyErrorMessageString
        _ = (copy, add, update, delete, message)
    }

    @Test func cfDictionaryLiteralsAndBooleansWork() {
        let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecReturnData: kCFBooleanTrue!]
        let dictionary = query as CFDictionary
        #expect(dictionary.count == 2)
        #expect(kCFBooleanTrue as? Bool == true)
        #expect(kCFBooleanFalse as? Bool == false)
    }

    @Test func accessControlFlagsUseApplesBits() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1 << 0)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 1 << 1)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 1 << 3)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 1 << 4)
        #expect(SecAccessControlCreateFlags.watch.rawValue == 1 << 5)
        #expect(SecAccessControlCreateFlags.or.rawValue == 1 << 14)
        #expect(SecAccessControlCreateFlags.and.rawValue == 1 << 15)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
        #expect(SecAccessControlCreateFlags(rawValue: 1 << 3) == .biometryCurrentSet)
    }

    @Test func accessControlIsCreatedFromAProtectionAndFlags() {
        let access = SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.biometryAny, .or, .devicePasscode], nil)
        #expect(access != nil)
    }

    @Test func accessControlRejectsBadProtectionAndFlags() {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, "nonsense" as CFString, .userPresence, &error) == nil)
        let reported = error?.takeRetainedValue()
        #expect(reported?.code == Int(errSecParam))
        #expect(
            SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleAlways, [.or, .and], nil) == nil)
        #expect(
            SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleAlways, SecAccessControlCreateFlags(rawValue: 1 << 9), nil)
                == nil)
    }

    @Test func constantsHaveApplesValues() {
        let expected: [(CFString, String)] = [
            (kSecClass, "class"), (kSecClassGenericPassword, "genp"), (kSecClassInternetPassword, "inet"),
            (kSecClassKey, "keys"), (kSecClassCertificate, "cert"), (kSecClassIdentity, "idnt"),
            (kSecAttrAccount, "acct"), (kSecAttrService, "svce"), (kSecAttrAccessGroup, "agrp"),
            (kSecAttrAccessible, "pdmn"), (kSecAttrAccessControl, "accc"), (kSecAttrSynchronizable, "sync"),
            (kSecAttrSynchronizableAny, "syna"), (kSecAttrServer, "srvr"), (kSecAttrProtocol, "ptcl"),
            (kSecAttrPort, "port"), (kSecAttrPath, "path"), (kSecAttrAuthenticationType, "atyp"),
            (kSecAttrLabel, "labl"), (kSecAttrGeneric, "gena"), (kSecValueData, "v_Data"),
            (kSecValuePersistentRef, "v_PersistentRef"), (kSecValueRef, "v_Ref"), (kSecReturnData, "r_Data"),
            (kSecReturnAttributes, "r_Attributes"), (kSecReturnPersistentRef, "r_PersistentRef"),
            (kSecReturnRef, "r_Ref"), (kSecMatchLimit, "m_Limit"), (kSecMatchLimitOne, "m_LimitOne"),
            (kSecMatchLimitAll, "m_LimitAll"), (kSecUseDataProtectionKeychain, "nleg"),
            (kSecAttrAccessibleWhenUnlocked, "ak"), (kSecAttrAccessibleAfterFirstUnlock, "ck"),
            (kSecAttrAccessibleAlways, "dk"), (kSecAttrAccessibleWhenUnlockedThisDeviceOnly, "aku"),
            (kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, "cku"), (kSecAttrAccessibleAlwaysThisDeviceOnly, "dku"),
            (kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, "akpu"), (kSecAttrProtocolHTTPS, "htps"),
            (kSecAttrProtocolFTP, "ftp "), (kSecAttrAuthenticationTypeDefault, "dflt"),
            (kSecAttrAuthenticationTypeHTMLForm, "form"),
        ]
        for (constant, value) in expected {
            #expect(constant as String == value)
        }
    }
}
