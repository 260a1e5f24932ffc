import ClavisCore
import ClavisCrypto
import Testing

@Suite struct SecureRandomTests {
    @Test func bytesHaveTheRequestedCountAndDifferBetweenCalls() {
        let first = SecureRandom.bytes(count: 32)
        let second = SecureRandom.bytes(count: 32)
        #expect(first.count == 32 && second.count == 32)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }

    @Test func secureBytesHaveTheRequestedCountAndDifferBetweenCalls() {
        let first = SecureRandom.secureBytes(count: 32)
        let second = SecureRandom.secureBytes(count: 32)
        #expect(first.count == 32)
        #expect(!ConstantTime.equals(first, second))
    }

    @Test func zeroBytesAreEmpty() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        #expect(SecureRandom.secureBytes(count: 0).isEmpty)
    }
}
