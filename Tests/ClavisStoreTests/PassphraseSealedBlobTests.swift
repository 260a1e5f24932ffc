import ClavisCore
import ClavisCrypto
import Testing

@testable import ClavisStore

/// The one passphrase-sealed format backups and application passwords share: its clear part laid out byte for byte
/// as both wrote it before they shared it, and its sealed part bound to that clear part and to the caller's context.
@Suite struct PassphraseSealedBlobTests {
    @Test func theClearPartIsTagLengthAndHeaderAndTheRestOpensOnlyAsSealed() throws {
        let backup = PassphraseSealedBlob(magic: Array("CLAVIS-BACKUP 1\n".utf8), lengthBytes: 4)
        let password = PassphraseSealedBlob(magic: Array("cap1".utf8), lengthBytes: 2)
        let header = Array(#"{"kdf":1}"#.utf8)
        #expect(try backup.prefix(header: header) == Array("CLAVIS-BACKUP 1\n".utf8) + [0, 0, 0, 9] + header)
        #expect(try password.prefix(header: header) == Array("cap1".utf8) + [0, 9] + header)
        #expect(throws: KeychainError.self) { try password.prefix(header: Array(repeating: 0, count: 65_536)) }

        let key = SecureBytes(Array(repeating: 7, count: 32))
        let prefix = try password.prefix(header: header)
        let blob = try password.seal(SecureBytes(Array("secret".utf8)), key: key, prefix: prefix, context: [1, 2])
        let (read, end) = try #require(password.header(of: blob))
        #expect(Array(read) == header && end == prefix.count)
        #expect(
            try password.open(blob, end: end, key: key, context: [1, 2]).unprotectedBytes() == Array("secret".utf8))
        // Another context, another key, a changed header: refused.
        #expect(throws: (any Error).self) { try password.open(blob, end: end, key: key, context: [1, 3]) }
        #expect(throws: (any Error).self) {
            try password.open(blob, end: end, key: SecureBytes(Array(repeating: 8, count: 32)), context: [1, 2])
        }
        var changed = blob
        changed[prefix.count - 1] ^= 1
        #expect(throws: (any Error).self) { try password.open(changed, end: end, key: key, context: [1, 2]) }
        // Not this format: another tag, or a length past the end.
        #expect(backup.header(of: blob) == nil)
        #expect(password.header(of: Array("cap1".utf8) + [0xFF, 0xFF] + header) == nil)
    }
}
