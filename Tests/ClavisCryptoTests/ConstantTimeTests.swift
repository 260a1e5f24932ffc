import ClavisCore
import ClavisCrypto
import Testing

@Suite struct ConstantTimeTests {
    @Test func equalArraysCompareEqual() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(ConstantTime.equals([UInt8](), []))
    }

    @Test func arraysDifferingInTheFirstOrLastByteCompareUnequal() {
        #expect(!ConstantTime.equals([9, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 9]))
    }

    @Test func arraysOfDifferentLengthsCompareUnequal() {
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
    }

    @Test func secureBytesCompareByContent() {
        #expect(ConstantTime.equals(SecureBytes(utf8("key")), SecureBytes(utf8("key"))))
        #expect(!ConstantTime.equals(SecureBytes(utf8("key")), SecureBytes(utf8("kez"))))
        #expect(!ConstantTime.equals(SecureBytes(utf8("key")), SecureBytes(utf8("keys"))))
        #expect(ConstantTime.equals(SecureBytes([UInt8]()), SecureBytes([UInt8]())))
    }
}
