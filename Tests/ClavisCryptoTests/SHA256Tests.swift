import ClavisCrypto
import Testing

@Suite struct SHA256Tests {
    @Test func hashMatchesFIPS180ExampleABC() {
        #expect(SHA256.hash(utf8("abc")) == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    @Test func hashMatchesFIPS180TwoBlockExample() {
        let message = utf8("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        #expect(SHA256.hash(message) == hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"))
    }

    @Test func hashOfTheEmptyMessage() {
        #expect(SHA256.hash([]) == hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }
}
