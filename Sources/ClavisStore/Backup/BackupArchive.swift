internal import ClavisCore
internal import ClavisCrypto
internal import FoundationEssentials

/// The backup file: items that may leave this device, sealed under a key derived from a backup passphrase.
///
/// Layout (`PassphraseSealedBlob`): the magic line `CLAVIS-BACKUP 1\n`, a 4-byte big-endian length and a JSON
/// header (the passphrase KDF), then AES-256-GCM (nonce ‖ ciphertext ‖ tag) of the payload, authenticated with the
/// magic and the header. The payload is, per item: its class code (4 bytes), its attributes in `AttributeCodec` form
/// and its secret, each with a 4-byte length. Nothing but the KDF's parameters is readable without the passphrase.
enum BackupArchive {
    /// The sealed file's format.
    static let format = PassphraseSealedBlob(magic: Array("CLAVIS-BACKUP 1\n".utf8), lengthBytes: 4)

    /// One item as it travels: class, attributes and secret.
    struct Entry {
        var itemClass: ItemClass
        var attributes: [AttributeKey: AttributeValue]
        var secret: SecureBytes
    }

    private struct Header: Codable {
        var kdf: PasscodeKDF
    }

    static func seal(_ entries: [Entry], passphrase: SecureBytes, kdf: PasscodeKDF) throws -> [UInt8] {
        let prefix = try format.prefix(header: Array(try JSONEncoder().encode(Header(kdf: kdf))))
        let encoded = entries.map { ($0, AttributeCodec.encode($0.attributes)) }
        let size = encoded.reduce(0) { $0 + 4 + 4 + $1.1.count + 4 + $1.0.secret.count }
        let payload = SecureBytes(count: size) { buffer in
            var offset = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                if !bytes.isEmpty { UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]).copyMemory(from: bytes) }
                offset += bytes.count
            }
            for (entry, attributes) in encoded {
                Array(entry.itemClass.rawValue.utf8).withUnsafeBytes(put)
                bigEndian(UInt32(attributes.count)).withUnsafeBytes(put)
                attributes.withUnsafeBytes(put)
                bigEndian(UInt32(entry.secret.count)).withUnsafeBytes(put)
                entry.secret.withUnsafeBytes(put)
            }
        }
        return try format.seal(payload, key: try deriveKey(passphrase, kdf), prefix: prefix)
    }

    static func open(_ archive: [UInt8], passphrase: SecureBytes) throws -> [Entry] {
        guard archive.starts(with: format.magic) else {
            throw KeychainError(.decode, "the file is not a Clavis backup")
        }
        guard let (clear, end) = format.header(of: archive),
            let header = try? JSONDecoder().decode(Header.self, from: Data(clear))
        else {
            throw KeychainError(.decode, "the backup's header is damaged")
        }
        let key = try deriveKey(passphrase, header.kdf)
        let payload: SecureBytes
        do {
            payload = try format.open(archive, end: end, key: key)
        } catch {
            throw KeychainError(.authFailed, "the backup passphrase is wrong, or the backup was altered")
        }
        return try payload.withUnsafeBytes { try entries(in: $0) }
    }

    private static func entries(in payload: UnsafeRawBufferPointer) throws -> [Entry] {
        var entries: [Entry] = []
        var offset = 0
        func take(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count >= 0, payload.count - offset >= count else {
                throw KeychainError(.decode, "the backup's contents are truncated")
            }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: payload[offset..<offset + count])
        }
        func length() throws -> Int { try take(4).reduce(0) { $0 << 8 | Int($1) } }
        while offset < payload.count {
            guard let itemClass = ItemClass(rawValue: String(decoding: try take(4), as: UTF8.self)) else {
                throw KeychainError(.decode, "the backup names an unknown item class")
            }
            let attributes = try AttributeCodec.decode(Array(try take(try length())))
            let secret = SecureBytes(copying: try take(try length()))
            entries.append(Entry(itemClass: itemClass, attributes: attributes, secret: secret))
        }
        return entries
    }

    private static func deriveKey(_ passphrase: SecureBytes, _ kdf: PasscodeKDF) throws -> SecureBytes {
        guard !passphrase.isEmpty else { throw KeychainError(.param, "a backup passphrase cannot be empty") }
        do {
            return try kdf.deriveKey(from: passphrase)
        } catch {
            throw KeychainError(.decode, "the backup's key derivation parameters are unusable")
        }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
