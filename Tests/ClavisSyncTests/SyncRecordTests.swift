import ClavisCore
import ClavisSync
import Foundation
import Testing

/// Sealed records as a device writes them and another reads them: only circle members' signatures, only the
/// generation's keys, never a changed byte, a moved ciphertext or a replayed version; `ThisDeviceOnly` items never
/// sealed.
@Suite struct SyncRecordTests {
    private let keys = SyncKeys.generate(generation: 1)
    private let writer: SyncDeviceKey
    private let members: [[UInt8]: [UInt8]]

    init() throws {
        writer = try SyncDeviceKey.generate()
        members = [writer.identifier: writer.publicKey]
    }

    private func item(account: String = "alice@example.org", secret: String? = "hunter2") -> SyncedItem {
        SyncedItem(
            itemClass: .genericPassword,
            attributes: [
                .account: .string(account), .service: .string("mail.example.org"), .accessGroup: .string("TEAM.mail"),
                .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue), .synchronizable: .bool(true),
                .label: .string("Mail"),
            ],
            secret: secret.map { SecureBytes(Array($0.utf8)) }, modified: 1_765_000_000_000)
    }

    @Test func aRecordOpensOnAnotherDeviceWithEveryAttributeAndTheSecret() throws {
        let record = try SyncRecord.seal(item(), version: 1, keys: keys, by: writer)
        #expect(record.identifier.count == 32 && record.writer == writer.identifier)
        // Another device holds the same keys, received as one wrapped secret.
        let received = try SyncKeys(encoded: keys.encoded)
        let opened = try record.open(keys: [1: received], members: members)
        #expect(opened.attributes == item().attributes)
        #expect(opened.secret == SecureBytes(Array("hunter2".utf8)))
        #expect(opened.modified == 1_765_000_000_000 && !opened.isTombstone)
        // Nothing of the item is in the record in clear.
        for clear in ["alice@example.org", "mail.example.org", "TEAM.mail", "hunter2", "Mail"] {
            #expect(!Data(record.ciphertext + record.identifier).contains(Data(clear.utf8)), "\(clear) in clear")
        }
        // The same item always has the same identifier; another item, or the same in another group, another.
        #expect(
            try SyncRecord.seal(item(secret: "changed"), version: 2, keys: keys, by: writer).identifier
                == record.identifier)
        #expect(
            try SyncRecord.seal(item(account: "bob"), version: 1, keys: keys, by: writer).identifier
                != record.identifier)
        var elsewhere = item()
        elsewhere.attributes[.accessGroup] = .string("TEAM.other")
        #expect(try SyncRecord.seal(elsewhere, version: 1, keys: keys, by: writer).identifier != record.identifier)
        // A tombstone carries no secret.
        let tombstone = try SyncRecord.seal(item(secret: nil), version: 3, keys: keys, by: writer)
        #expect(try tombstone.open(keys: [1: keys], members: members).isTombstone)
    }

    @Test func everyChangedByteIsRefused() throws {
        let record = try SyncRecord.seal(item(), version: 1, keys: keys, by: writer)
        for index in record.ciphertext.indices {
            var changed = record
            changed.ciphertext[index] ^= 0x01
            let error = #expect(throws: KeychainError.self) { _ = try changed.open(keys: [1: keys], members: members) }
            #expect(error?.code == .verifyFailed, "byte \(index)")
        }
        var moved = record
        moved.identifier[0] ^= 0x01
        #expect(throws: KeychainError.self) { _ = try moved.open(keys: [1: keys], members: members) }
        var renumbered = record
        renumbered.version = 2
        #expect(throws: KeychainError.self) { _ = try renumbered.open(keys: [1: keys], members: members) }
        var truncatedSignature = record
        truncatedSignature.signature.removeLast()
        #expect(throws: KeychainError.self) { _ = try truncatedSignature.open(keys: [1: keys], members: members) }
    }

    @Test func onlyMembersWriteAndOnlyNewerVersionsApply() throws {
        let outsider = try SyncDeviceKey.generate()
        let forged = try SyncRecord.seal(item(), version: 1, keys: keys, by: outsider)
        let notMember = #expect(throws: KeychainError.self) { _ = try forged.open(keys: [1: keys], members: members) }
        #expect(notMember?.code == .verifyFailed)
        // A record signed by a member but claimed for another writer is refused too.
        var claimed = forged
        claimed.writer = writer.identifier
        #expect(throws: KeychainError.self) { _ = try claimed.open(keys: [1: keys], members: members) }

        let older = try SyncRecord.seal(item(secret: "old"), version: 4, keys: keys, by: writer)
        let newer = try SyncRecord.seal(item(secret: "new"), version: 5, keys: keys, by: writer)
        #expect(
            try newer.open(keys: [1: keys], members: members, newerThan: 4).secret == SecureBytes(Array("new".utf8)))
        let replayed = #expect(throws: KeychainError.self) {
            _ = try older.open(keys: [1: keys], members: members, newerThan: 5)
        }
        #expect(replayed?.code == .verifyFailed)
        #expect(replayed?.reason.contains("version 4 of a record this device has at version 5") == true)
    }

    @Test func aRemovedDeviceCannotOpenANewGeneration() throws {
        let rotated = SyncKeys.generate(generation: 2)
        let record = try SyncRecord.seal(item(), version: 1, keys: rotated, by: writer)
        let error = #expect(throws: KeychainError.self) { _ = try record.open(keys: [1: keys], members: members) }
        #expect(error?.code == .notAvailable)
        // Generation 1's class keys do not open it even when claimed as generation 2.
        #expect(throws: KeychainError.self) {
            _ = try record.open(keys: [2: try SyncKeys(encoded: keys.encoded)], members: members)
        }
        #expect(try record.open(keys: [1: keys, 2: rotated], members: members).secret != nil)
    }

    @Test func itemsThatNeverLeaveTheDeviceAreNotSealed() throws {
        for protection in ProtectionClass.allCases where protection.isThisDeviceOnly {
            var local = item()
            local.attributes[.accessible] = .string(protection.rawValue)
            let error = #expect(throws: KeychainError.self) {
                _ = try SyncRecord.seal(local, version: 1, keys: keys, by: writer)
            }
            #expect(error?.code == .param)
        }
        #expect(SyncKeys.syncedClasses.count == 3)
        #expect(throws: KeychainError.self) { _ = try SyncKeys(encoded: SecureBytes([1, 2, 3])) }
    }
}
