import ClavisCore
import ClavisCrypto
import Testing

@Suite struct SecureBytesDescriptionTests {
    @Test func descriptionNamesTheSizeButNotTheContent() throws {
        let key = SecureBytes(utf8("hunter2-secret"))
        for text in [key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)"]
        {
            #expect(text == "SecureBytes(14 bytes)")
            #expect(!text.contains("hunter2"))
        }
    }

    @Test func derivedKeysDoNotPrintTheirBytes() throws {
        let key = try HKDFSHA256.deriveKey(from: SecureBytes(utf8("ikm")), salt: [], info: [], outputByteCount: 32)
        let hexKey = key.unprotectedBytes().map { String($0, radix: 16) }.joined()
        #expect(!key.description.contains(hexKey))
        #expect(key.description == "SecureBytes(32 bytes)")
    }

    @Test func errorsDoNotCarryKeyMaterial() {
        let key = SecureBytes(utf8("0123456789abcdef"))
        do {
            _ = try AESGCM.seal(SecureBytes(utf8("x")), key: key, authenticating: [])
            Issue.record("a 16-byte key must be rejected")
        } catch {
            #expect(!"\(error)".contains("0123456789abcdef"))
        }
    }
}
