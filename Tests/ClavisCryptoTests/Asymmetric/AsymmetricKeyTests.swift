import ClavisCore
import ClavisCrypto
import Testing

/// EC and RSA keys through OpenSSL: representations, signatures, encryption and agreement.
@Suite struct AsymmetricKeyTests {
    /// RFC 6979 A.2.5: the P-256 key and its deterministic SHA-256 signature over "sample".
    static let rfc6979Private = "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721"
    static let rfc6979Point =
        "04" + "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"
        + "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299"
    static let rfc6979Signature =
        "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
        + "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"

    @Test func rfc6979PrivateKeyYieldsItsPublishedPoint() throws {
        let key = try AsymmetricKey.ellipticCurve(
            x963: secureHex(Self.rfc6979Point + Self.rfc6979Private), isPrivate: true)
        #expect(key.kind == .ellipticCurve(.p256))
        #expect(try key.publicKey().publicRepresentation() == hex(Self.rfc6979Point))
        #expect(try key.privateRepresentation().unprotectedBytes() == hex(Self.rfc6979Point + Self.rfc6979Private))
    }

    @Test func rfc6979SignatureVerifiesAndAlteredOneDoesNot() throws {
        let key = try AsymmetricKey.ellipticCurve(x963: secureHex(Self.rfc6979Point), isPrivate: false)
        let der = try ECDSASignature.der(fromRaw: hex(Self.rfc6979Signature), curve: .p256)
        let digest = DigestAlgorithm.sha256.hash(utf8("sample"))
        #expect(try key.verify(signature: der, digest: digest, algorithm: .sha256, padding: .ecdsa))
        #expect(
            try !key.verify(
                signature: der, digest: DigestAlgorithm.sha256.hash(utf8("samplf")), algorithm: .sha256, padding: .ecdsa
            ))
        #expect(try ECDSASignature.raw(fromDER: der, curve: .p256) == hex(Self.rfc6979Signature))
    }

    @Test func pointOffTheCurveIsRefused() {
        var point = hex(Self.rfc6979Point)
        point[64] ^= 1
        #expect(throws: CryptoError.self) {
            try AsymmetricKey.ellipticCurve(x963: SecureBytes(point), isPrivate: false)
        }
    }

    @Test func scalarOfAnotherPointIsRefused() {
        var scalar = hex(Self.rfc6979Private)
        scalar[31] ^= 1
        #expect(throws: CryptoError.self) {
            try AsymmetricKey.ellipticCurve(x963: SecureBytes(hex(Self.rfc6979Point) + scalar), isPrivate: true)
        }
    }

    @Test(arguments: EllipticCurve.allCases)
    func generatedECKeySignsAndRoundTrips(curve: EllipticCurve) throws {
        let key = try AsymmetricKey.generate(curve: curve)
        let digest = DigestAlgorithm.sha384.hash([1, 2, 3])
        let signature = try key.sign(digest: digest, algorithm: .sha384, padding: .ecdsa)
        let copy = try AsymmetricKey.ellipticCurve(x963: key.privateRepresentation(), isPrivate: true)
        #expect(try copy.publicKey().verify(signature: signature, digest: digest, algorithm: .sha384, padding: .ecdsa))
        #expect(try key.privateRepresentation().count == curve.pointByteCount + curve.coordinateByteCount)
    }

    @Test func rsaKeySignsWithEveryPaddingAndRoundTrips() throws {
        let key = try AsymmetricKey.generateRSA(bits: 1024)
        let publicKey = try AsymmetricKey.rsa(pkcs1: SecureBytes(key.publicRepresentation()), isPrivate: false)
        #expect(publicKey.kind == .rsa(bits: 1024))
        let digest = DigestAlgorithm.sha256.hash([9])
        for padding in [SignaturePadding.pkcs1v15, .pss] {
            let signature = try key.sign(digest: digest, algorithm: .sha256, padding: padding)
            #expect(try publicKey.verify(signature: signature, digest: digest, algorithm: .sha256, padding: padding))
            #expect(
                try !publicKey.verify(
                    signature: signature, digest: digest.reversed(), algorithm: .sha256, padding: padding))
        }
        var block = [UInt8](repeating: 0x11, count: 128)
        block[0] = 0
        let raw = try key.sign(digest: block, algorithm: nil, padding: .none)
        #expect(try publicKey.verify(signature: raw, digest: block, algorithm: nil, padding: .none))
        let copy = try AsymmetricKey.rsa(pkcs1: key.privateRepresentation(), isPrivate: true)
        #expect(try copy.publicRepresentation() == publicKey.publicRepresentation())
    }

    @Test func reusedContextsKeepNoSettingsFromTheOperationBefore() throws {
        let key = try AsymmetricKey.generateRSA(bits: 1024)
        let publicKey = try key.publicKey()
        let digest = DigestAlgorithm.sha256.hash([7])
        let first = try key.sign(digest: digest, algorithm: .sha256, padding: .pkcs1v15)
        for _ in 0..<3 {
            // PSS, OAEP and raw settings in between must not leak into the deterministic PKCS#1 v1.5 signature.
            _ = try key.sign(digest: DigestAlgorithm.sha384.hash([7]), algorithm: .sha384, padding: .pss)
            let sealed = try publicKey.encrypt(SecureBytes([1, 2, 3]), padding: .oaep(.sha384))
            #expect(try key.decrypt(sealed, padding: .oaep(.sha384)).unprotectedBytes() == [1, 2, 3])
            #expect(try key.sign(digest: digest, algorithm: .sha256, padding: .pkcs1v15) == first)
            #expect(try publicKey.verify(signature: first, digest: digest, algorithm: .sha256, padding: .pkcs1v15))
        }
    }

    @Test func rsaEncryptionRoundTripsWithEachPadding() throws {
        let key = try AsymmetricKey.generateRSA(bits: 1024)
        let publicKey = try key.publicKey()
        let message = SecureBytes(utf8("attack at dawn"))
        for padding in [RSAEncryptionPadding.pkcs1, .oaep(.sha1), .oaep(.sha256), .oaep(.sha384)] {
            let ciphertext = try publicKey.encrypt(message, padding: padding)
            #expect(ciphertext.count == 128)
            #expect(try key.decrypt(ciphertext, padding: padding).unprotectedBytes() == utf8("attack at dawn"))
        }
        #expect(throws: CryptoError.self) { try publicKey.encrypt(message, padding: .none) }
        // OAEP with SHA-512 needs 130 bytes of padding, more than a 1024-bit block holds.
        #expect(throws: CryptoError.self) { try publicKey.encrypt(message, padding: .oaep(.sha512)) }
    }

    @Test func ecdhAgreesBothWays() throws {
        let alice = try AsymmetricKey.generate(curve: .p384)
        let bob = try AsymmetricKey.generate(curve: .p384)
        let one = try alice.sharedSecret(with: bob.publicKey(), cofactor: false)
        let two = try bob.sharedSecret(with: alice.publicKey(), cofactor: true)
        #expect(one.count == 48)
        #expect(one.unprotectedBytes() == two.unprotectedBytes())
        #expect(throws: CryptoError.self) {
            try alice.sharedSecret(with: AsymmetricKey.generate(curve: .p256), cofactor: false)
        }
    }

    @Test func gcmWithSixteenByteIVMatchesItsOwnOpening() throws {
        let key = SecureBytes(Array(repeating: 1, count: 16))
        let iv = [UInt8](repeating: 0, count: 16)
        let sealed = try AESGCM.encrypt(SecureBytes(utf8("hi")), key: key, iv: iv, authenticating: [])
        #expect(sealed.count == 2 + 16)
        #expect(try AESGCM.decrypt(sealed, key: key, iv: iv, authenticating: []).unprotectedBytes() == utf8("hi"))
        var altered = sealed
        altered[0] ^= 1
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.decrypt(altered, key: key, iv: iv, authenticating: [])
        }
    }
}
