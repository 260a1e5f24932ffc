import ClavisTestSupport
import Security
import Testing

/// The Core Foundation and Security names keychain code calls around `SecItem*`, used as on Apple platforms: this
/// file imports only `Security`, so each name must come from it.
@Suite(.preparedKeychain) struct AppleNamesTests {
    @Test func noErrIsAZeroStatus() {
        let status: OSStatus = noErr
        #expect(status == 0)
        #expect(errSecSuccess == noErr)
    }

    @Test func secRandomCopyBytesFillsABufferFromTheDefaultGenerator() {
        var first = [UInt8](repeating: 0, count: 32)
        var second = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
        let status = second.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, 32, $0.baseAddress!) }
        #expect(status == errSecSuccess)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
        var none = [UInt8]()
        #expect(SecRandomCopyBytes(kSecRandomDefault, 0, &none) == errSecSuccess)
    }

    @Test func cfErrorFunctionsReadAnAccessControlError() {
        var error: Unmanaged<CFError>?
        let refused = SecAccessControlCreateWithFlags(
            kCFAllocatorDefault, "not a protection" as CFString, .userPresence, &error)
        #expect(refused == nil)
        guard let cfError = error?.takeRetainedValue() else {
            Issue.record("no error came back")
            return
        }
        #expect(CFErrorGetDomain(cfError) as String == kCFErrorDomainOSStatus as String)
        #expect(CFErrorGetCode(cfError) == Int(errSecParam))
        #expect(CFErrorCopyUserInfo(cfError) is [String: Any])
        let description = CFErrorCopyDescription(cfError) as String
        #expect(!description.isEmpty)
        #expect(CFGetTypeID(cfError) == CFErrorGetTypeID())
    }

    @Test func cfGetTypeIDTellsAccessControlFromOtherObjects() {
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)!
        #expect(CFGetTypeID(access) == SecAccessControlGetTypeID())
        #expect(CFGetTypeID("text" as CFString) == CFStringGetTypeID())
        #expect(CFGetTypeID(Data([1]) as CFData) == CFDataGetTypeID())
        #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(42 as CFNumber) == CFNumberGetTypeID())
        #expect(CFGetTypeID([:] as CFDictionary) == CFDictionaryGetTypeID())
        #expect(CFGetTypeID([] as CFArray) == CFArrayGetTypeID())
        #expect(CFGetTypeID(Date() as CFDate) == CFDateGetTypeID())
        let ids = [
            SecAccessControlGetTypeID(), CFStringGetTypeID(), CFDataGetTypeID(), CFBooleanGetTypeID(),
            CFNumberGetTypeID(), CFDictionaryGetTypeID(), CFArrayGetTypeID(), CFDateGetTypeID(), CFErrorGetTypeID(),
            CFNullGetTypeID(),
        ]
        #expect(Set(ids).count == ids.count)
    }

    /// Code keeps an access control in `Equatable` structs and sends it across tasks.
    @Test func accessControlIsHashableAndSendable() async {
        struct Configuration: Hashable, Sendable {
            var access: SecAccessControl
        }
        let one = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)!
        let same = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)!
        let other = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .userPresence, nil)!
        #expect(Configuration(access: one) == Configuration(access: same))
        #expect(Configuration(access: one) != Configuration(access: other))
        #expect(Set([one, same, other]).count == 2)
        let sent = await Task.detached { Configuration(access: one) }.value
        #expect(sent.access == same)
    }
}
