internal import ClavisCore
internal import ClavisCrypto

/// The one format of a secret sealed under a key derived from a passphrase, which backups (`BackupArchive`) and
/// application passwords (`ApplicationPasswordSealer`) both write: a magic tag, the big-endian length of a clear
/// header (in `lengthBytes` bytes), the header (the key derivation's parameters, JSON), then AES-256-GCM (nonce ‖
/// ciphertext ‖ tag) authenticated with everything before it and the caller's context. The two differ only in their
/// tag, the width of the length and what the context binds.
struct PassphraseSealedBlob {
    /// The tag a blob starts with.
    let magic: [UInt8]
    /// How many bytes hold the header's length.
    let lengthBytes: Int

    /// The clear part of a blob whose header is `header`.
    ///
    /// - Throws: `param` for a header too long for the length field.
    func prefix(header: [UInt8]) throws(KeychainError) -> [UInt8] {
        guard header.count < 1 << (8 * lengthBytes) else {
            throw KeychainError(.param, "the key derivation's parameters are too large")
        }
        let length = (0..<lengthBytes).reversed().map { UInt8(truncatingIfNeeded: header.count >> (8 * $0)) }
        return magic + length + header
    }

    /// `payload` sealed under `key` after `prefix` (`prefix(header:)`), bound to `context`.
    func seal(_ payload: SecureBytes, key: SecureBytes, prefix: [UInt8], context: [UInt8] = []) throws -> [UInt8] {
        prefix + (try AESGCM.seal(payload, key: key, authenticating: prefix + context))
    }

    /// The header of `blob` and where the clear part ends; `nil` when `blob` is not one of this format (another
    /// tag, a length past its end, or nothing sealed after the header).
    func header(of blob: [UInt8]) -> (header: ArraySlice<UInt8>, end: Int)? {
        let start = magic.count + lengthBytes
        guard blob.count > start, blob.starts(with: magic) else { return nil }
        let length = blob[magic.count..<start].reduce(0) { $0 << 8 | Int($1) }
        let end = start + length
        guard length > 0, blob.count > end else { return nil }
        return (blob[start..<end], end)
    }

    /// What `seal` sealed in `blob`, whose clear part ends at `end` (`header(of:)`), bound to `context`.
    ///
    /// - Throws: when the key or the context is not the one it was sealed with, or the blob was altered.
    func open(_ blob: [UInt8], end: Int, key: SecureBytes, context: [UInt8] = []) throws -> SecureBytes {
        try AESGCM.open(Array(blob[end...]), key: key, authenticating: Array(blob[..<end]) + context)
    }
}
