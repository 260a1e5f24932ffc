import ClavisCore
import Foundation
import Testing

@Suite struct ModelTests {
    @Test func protectionClassesOpenAsOnADevice() {
        #expect(
            ProtectionClass.allCases.filter { $0.isOpen(in: .beforeFirstUnlock) } == [.always, .alwaysThisDeviceOnly])
        #expect(
            ProtectionClass.allCases.filter { !$0.isOpen(in: .locked) }
                == [.whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly])
        #expect(ProtectionClass.allCases.allSatisfy { $0.isOpen(in: .unlocked) })
        #expect(ProtectionClass.default == .whenUnlocked)
    }

    @Test func statusCodesAreApplesWithApplesMessages() {
        #expect(KeychainError.Code.itemNotFound.rawValue == -25300)
        #expect(KeychainError.Code.duplicateItem.rawValue == -25299)
        #expect(KeychainError.Code.interactionNotAllowed.rawValue == -25308)
        #expect(KeychainError.Code.missingEntitlement.rawValue == -34018)
        #expect(KeychainError.Code.itemNotFound.message == "The specified item could not be found in the keychain.")
        #expect(KeychainError.Code(rawValue: 12345).message == "OSStatus 12345")
    }

    @Test func validationRejectsForeignAttributesAndWrongKinds() {
        func code(_ body: () throws -> Void) -> KeychainError.Code? {
            do {
                try body()
                return nil
            } catch let error as KeychainError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(code { try ItemClass.genericPassword.validate([.server: .string("x")]) } == .noSuchAttribute)
        #expect(code { try ItemClass.internetPassword.validate([.service: .string("x")]) } == .noSuchAttribute)
        #expect(code { try ItemClass.genericPassword.validate([.account: .date(Date())]) } == .param)
        #expect(code { try ItemClass.genericPassword.validate([.port: .bool(true)]) } == .noSuchAttribute)
        // Blob attributes take a string, data or a number, each kept as given.
        for value: AttributeValue in [.string("k"), .data(Data("k".utf8)), .number(7)] {
            #expect(code { try ItemClass.genericPassword.validate([.account: value]) } == nil)
        }
        #expect(code { try ItemClass.genericPassword.validate([.accessible: .string("nope")]) } == .param)
        #expect(code { try ItemClass.internetPassword.validate([.port: .number(443), .server: .string("a")]) } == nil)
    }

    @Test func numbersGivenForBooleansAreNormalised() throws {
        let normalized = try ItemClass.genericPassword.normalized([
            .synchronizable: .number(1), .isInvisible: .number(0),
        ])
        #expect(normalized[.synchronizable] == .bool(true))
        #expect(normalized[.isInvisible] == .bool(false))
    }

    @Test func secureBytesNeverDescribeTheirContents() {
        let bytes = SecureBytes(Array("hunter2".utf8))
        #expect(bytes.description == "SecureBytes(7 bytes)")
        #expect(!String(reflecting: bytes).contains("hunter2"))
        #expect(bytes.appending(SecureBytes([1])).count == 8)
    }

    @Test func persistentReferencesNameTheirClass() {
        let reference = PersistentReference(bytes: Array("genp".utf8) + Array(repeating: 0, count: 16))
        #expect(reference.itemClass == .genericPassword)
        #expect(PersistentReference(bytes: [1, 2]).itemClass == nil)
    }

}
