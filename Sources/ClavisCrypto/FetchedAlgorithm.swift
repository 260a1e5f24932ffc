internal import COpenSSL

/// One cipher implementation fetched from OpenSSL's default provider once per process.
///
/// OpenSSL 3 looks a cipher up by name in its provider store on every initialisation that names a legacy
/// `EVP_aes_*()` object (locks and a property query: microseconds per call); a fetched one skips that. The object
/// is immutable and reference-counted by OpenSSL, so sharing it between threads is safe.
final class FetchedCipher: @unchecked Sendable {
    /// The fetched cipher; valid for the lifetime of this object.
    let pointer: OpaquePointer

    private init(_ name: String) {
        guard let pointer = EVP_CIPHER_fetch(nil, name, nil) else {
            fatalError("OpenSSL provides no \(name)")
        }
        self.pointer = pointer
    }

    deinit { EVP_CIPHER_free(pointer) }

    /// AES-256 in Galois/Counter Mode.
    static let aes256GCM = FetchedCipher("AES-256-GCM")
    /// AES-256 one block at a time, for the kept key wrap (`AESKeyWrapKey`).
    static let aes256ECB = FetchedCipher("AES-256-ECB")
    /// AES-128 in Galois/Counter Mode.
    static let aes128GCM = FetchedCipher("AES-128-GCM")
}

/// One digest implementation fetched once per process (immutable and reference-counted, like `FetchedCipher`):
/// hashing or signing with a legacy `EVP_sha256()` object looks the implementation up again on every call.
final class FetchedDigest: @unchecked Sendable {
    /// The fetched digest; valid for the lifetime of this object.
    let pointer: OpaquePointer

    private init(_ name: String) {
        guard let pointer = EVP_MD_fetch(nil, name, nil) else { fatalError("OpenSSL provides no \(name)") }
        self.pointer = pointer
    }

    deinit { EVP_MD_free(pointer) }

    /// SHA-1.
    static let sha1 = FetchedDigest("SHA1")
    /// SHA-224.
    static let sha224 = FetchedDigest("SHA224")
    /// SHA-256.
    static let sha256 = FetchedDigest("SHA256")
    /// SHA-384.
    static let sha384 = FetchedDigest("SHA384")
    /// SHA-512.
    static let sha512 = FetchedDigest("SHA512")
}
