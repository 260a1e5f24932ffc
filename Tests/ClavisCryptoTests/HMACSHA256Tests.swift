import ClavisCore
import ClavisCrypto
import Testing

@Suite struct HMACSHA256Tests {
    @Test func authenticationCodeMatchesRFC4231TestCase1() {
        let code = HMACSHA256.authenticationCode(
            for: utf8("Hi There"), key: SecureBytes([UInt8](repeating: 0x0b, count: 20)))
        #expect(code == hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"))
    }

    @Test func authenticationCodeMatchesRFC4231TestCase2() {
        let code = HMACSHA256.authenticationCode(
            for: utf8("what do ya want for nothing?"), key: SecureBytes(utf8("Jefe")))
        #expect(code == hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
    }

    @Test func authenticationCodeHandlesAnEmptyKeyAndMessage() {
        let code = HMACSHA256.authenticationCode(for: [], key: SecureBytes([UInt8]()))
        // HMAC-SHA256("", "") as published in many references (and reproducible with `openssl mac`).
        #expect(code == hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }
}
