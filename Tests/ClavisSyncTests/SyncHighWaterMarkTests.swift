import ClavisCore
import Foundation
import Testing

@testable import ClavisSync

/// A device's high-water mark reads back only as its device signed it, and only for the circle it was signed for.
@Suite struct SyncHighWaterMarkTests {
    @Test func aMarkVerifiesOnlyUnchangedAndInItsOwnCircle() throws {
        let device = try SyncDeviceKey.generate()
        let circle = Array(repeating: UInt8(1), count: 32)
        let mark = SyncHighWaterMark(
            device: device.identifier, record: Array(repeating: 9, count: 32), version: 4, modified: 1_700_000_000_000,
            sequence: 3)
        let (stored, signature) = try mark.sealed(by: device, circle: circle)
        let read = try SyncHighWaterMark(
            device: device.identifier, stored: stored, signature: signature, signingKey: device.publicKey,
            circle: circle)
        #expect(read == mark)
        // Every byte changed, another circle, another device's key: refused.
        for index in stored.indices {
            var changed = stored
            changed[index] ^= 0x01
            #expect(throws: KeychainError.self) {
                try SyncHighWaterMark(
                    device: device.identifier, stored: changed, signature: signature, signingKey: device.publicKey,
                    circle: circle)
            }
        }
        #expect(throws: KeychainError.self) {
            try SyncHighWaterMark(
                device: device.identifier, stored: stored, signature: signature, signingKey: device.publicKey,
                circle: Array(repeating: 2, count: 32))
        }
        let other = try SyncDeviceKey.generate()
        #expect(throws: KeychainError.self) {
            try SyncHighWaterMark(
                device: device.identifier, stored: stored, signature: signature, signingKey: other.publicKey,
                circle: circle)
        }
    }
}
