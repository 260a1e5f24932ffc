import ClavisCore
import ClavisCrypto
import ClavisSync
import ClavisTestSupport
import Foundation
import Testing

/// The trust circle through a real PostgreSQL, as three of a user's devices live it: one makes the circle, another
/// joins after its user compares a code, a removed one reads nothing written after, and a new one joins with the
/// recovery key alone; a server that forges or replays a circle is caught.
@Suite(.serialized) struct SyncCircleTests {
    private func item(_ account: String, secret: String) -> SyncedItem {
        SyncedItem(
            itemClass: .genericPassword,
            attributes: [
                .account: .string(account), .service: .string("vpn.example.org"), .accessGroup: .string("TEAM.vpn"),
                .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue), .synchronizable: .bool(true),
            ],
            secret: SecureBytes(Array(secret.utf8)), modified: 1_765_000_000_000)
    }

    /// Every record of the account opened with what `membership` holds, as secrets.
    private func secrets(readBy membership: SyncMembership, from records: SyncRecordStore) throws -> [String] {
        try records.changes(after: 0).map { (change) throws(KeychainError) -> String in
            let opened = try change.record.open(keys: membership.keys, members: membership.circle.signingKeys)
            return String(decoding: opened.secret?.unprotectedBytes() ?? [], as: UTF8.self)
        }
    }

    @Test func devicesJoinLeaveAndRecoverThroughTheServer() throws {
        let server = try PostgresServer()
        let administrator = try server.prepareSync(accounts: ["alice"])
        func stores() throws -> (SyncCircleStore, SyncRecordStore) {
            let database = try server.connect(as: "alice")
            return (SyncCircleStore(database: database), SyncRecordStore(database: database))
        }

        // The laptop makes the circle; its user is shown the recovery key once.
        let laptopKey = try SyncDeviceKey.generate()
        let (laptopCircle, laptopRecords) = try stores()
        var laptop: SyncMembership
        let recovery: SyncRecoveryKey
        (laptop, recovery) = try SyncMembership.createCircle(device: laptopKey, name: "laptop", store: laptopCircle)
        let recoveryText = recovery.text
        #expect(recoveryText.split(separator: "-").count == 13 && recoveryText.count == 52 + 12)
        #expect(throws: KeychainError.self) {
            _ = try SyncMembership.createCircle(device: laptopKey, name: "laptop again", store: laptopCircle)
        }
        let first = try SyncRecord.seal(
            item("first", secret: "written-before-anyone-joined"), version: 1, keys: #require(laptop.currentKeys),
            by: laptopKey)
        try laptopRecords.write(first, replacing: nil)

        // The desktop asks to join; only the code its user reads off it lets the laptop approve it.
        let desktopKey = try SyncDeviceKey.generate()
        let (desktopCircle, desktopRecords) = try stores()
        let request = try SyncMembership.requestJoin(device: desktopKey, name: "desktop", store: desktopCircle)
        #expect(request.circle == laptop.circle.recovery.identifier)
        #expect(
            try SyncMembership.joined(device: desktopKey, request: request, store: desktopCircle) == nil,
            "not approved yet")
        #expect(request.code.count == 11 && request.code.contains("-"))
        let wrongCode = #expect(throws: KeychainError.self) {
            try laptop.approve(code: "00000-00000", store: laptopCircle)
        }
        #expect(wrongCode?.code == .itemNotFound)
        let approved = try laptop.approve(code: request.code.lowercased(), store: laptopCircle)
        #expect(approved.name == "desktop" && laptop.circle.members.count == 2)
        var desktop = try #require(
            try SyncMembership.joined(device: desktopKey, request: request, store: desktopCircle))
        #expect(desktop.circle == laptop.circle)
        #expect(try secrets(readBy: desktop, from: desktopRecords) == ["written-before-anyone-joined"])

        // A server that slips in a circle of its own making, or serves an older one, is refused.
        let intruder = try SyncDeviceKey.generate()
        let forged = laptop.circle.adding(SyncCircle.Member(intruder, name: "server's device"))
        let signedByIntruder = try SignedSyncCircle.sign(forged, by: intruder)
        try administrator.execute(
            "INSERT INTO clavis_sync.circles (account, version, circle, signature) VALUES ('alice', $1, $2, $3)",
            [.integer(forged.version), .bytes(signedByIntruder.body), .bytes(signedByIntruder.signature)])
        let refused = #expect(throws: KeychainError.self) { try desktop.refresh(store: desktopCircle) }
        #expect(refused?.code == .verifyFailed)
        let versionOne = try desktopCircle.circles(after: 0)[0]
        #expect(throws: KeychainError.self) { _ = try versionOne.verified(trusting: desktop.circle) }
        try administrator.execute("DELETE FROM clavis_sync.circles WHERE version = $1", [.integer(forged.version)])
        try desktop.refresh(store: desktopCircle)

        // The laptop removes the desktop: a new generation, which the desktop never receives.
        try laptop.remove(desktopKey.identifier, store: laptopCircle)
        #expect(laptop.circle.generation == 2 && laptop.circle.member(desktopKey.identifier) == nil)
        let second = try SyncRecord.seal(
            item("second", secret: "written-after-the-removal"), version: 1, keys: #require(laptop.currentKeys),
            by: laptopKey)
        try laptopRecords.write(second, replacing: nil)
        let removed = #expect(throws: KeychainError.self) { try desktop.refresh(store: desktopCircle) }
        #expect(removed?.code == .notAvailable)
        let unreadable = #expect(throws: KeychainError.self) { _ = try secrets(readBy: desktop, from: desktopRecords) }
        #expect(unreadable?.code == .notAvailable)
        #expect(try SyncMembership.joined(device: desktopKey, request: request, store: desktopCircle) == nil)

        // Every device is lost; a new phone joins with the written-down recovery key alone and reads everything.
        let phoneKey = try SyncDeviceKey.generate()
        let (phoneCircle, phoneRecords) = try stores()
        let mistyped = try SyncRecoveryKey(text: try SyncRecoveryKey.generate().text)
        let wrong = #expect(throws: KeychainError.self) {
            _ = try SyncMembership.recover(device: phoneKey, name: "phone", recovery: mistyped, store: phoneCircle)
        }
        #expect(wrong?.code == .authFailed)
        let typed = try SyncRecoveryKey(text: recoveryText.lowercased().replacingOccurrences(of: "-", with: " "))
        let phone = try SyncMembership.recover(device: phoneKey, name: "phone", recovery: typed, store: phoneCircle)
        #expect(Set(phone.keys.keys) == [1, 2])
        #expect(
            try secrets(readBy: phone, from: phoneRecords) == [
                "written-before-anyone-joined", "written-after-the-removal",
            ])
        // The laptop, still a member, follows the recovery's change.
        try laptop.refresh(store: laptopCircle)
        #expect(laptop.circle.member(phoneKey.identifier)?.name == "phone")
    }

    @Test func aRecoveryKeyIsReadBackAsWrittenAndBadTextIsRefused() throws {
        let key = try SyncRecoveryKey.generate()
        #expect(try SyncRecoveryKey(text: key.text).text == key.text)
        for bad in ["", "ABCD-EFGH", key.text + "-0000", String(key.text.dropLast(2)) + "U!"] {
            let error = #expect(throws: KeychainError.self) { _ = try SyncRecoveryKey(text: bad) }
            #expect(error?.code == .param)
        }
        let request = try SyncJoinRequest(
            try SyncDeviceKey.generate(), name: "tablet", circle: Array(repeating: 7, count: 32))
        #expect(try SyncJoinRequest(encoded: request.encoded) == request)
        var forged = request.encoded
        forged[forged.count - 5] ^= 1
        #expect(throws: KeychainError.self) { _ = try SyncJoinRequest(encoded: forged) }
    }

    /// A server with one account, its circle made by a laptop, and a desktop approved into it.
    private func laptopAndDesktop(_ server: PostgresServer) throws
        -> (laptop: SyncMembership, desktopKey: SyncDeviceKey, request: SyncJoinRequest, store: SyncCircleStore)
    {
        try server.prepareSync(accounts: ["alice"])
        let store = SyncCircleStore(database: try server.connect(as: "alice"))
        var (laptop, _) = try SyncMembership.createCircle(
            device: try SyncDeviceKey.generate(), name: "laptop", store: store)
        let desktopKey = try SyncDeviceKey.generate()
        let request = try SyncMembership.requestJoin(device: desktopKey, name: "desktop", store: store)
        try laptop.approve(code: request.code, store: store)
        return (laptop, desktopKey, request, store)
    }

    @Test func keysTheCircleDidNotCommitToAreRefused() throws {
        let server = try PostgresServer()
        let (_, desktopKey, request, store) = try laptopAndDesktop(server)
        // The server wraps keys of its own to the desktop's public key, in place of the laptop's.
        let substitute = SyncKeys.generate(generation: 1)
        let recipient = try AsymmetricKey.ellipticCurve(
            x963: SecureBytes(desktopKey.encryptionPublicKey), isPrivate: false)
        let wrapped = try AppleECIES.seal(substitute.encoded, to: recipient, digest: .sha256, variableIV: true)
        try server.connect().execute(
            "UPDATE clavis_sync.wrapped_keys SET wrapped = $1 WHERE recipient = $2",
            [.bytes(wrapped), .bytes(desktopKey.identifier)])
        let error = #expect(throws: KeychainError.self) {
            _ = try SyncMembership.joined(device: desktopKey, request: request, store: store)
        }
        #expect(error?.code == .verifyFailed)
    }

    @Test func aJoiningDeviceRefusesACircleTheServerMade() throws {
        let server = try PostgresServer()
        let (_, desktopKey, request, store) = try laptopAndDesktop(server)
        // The server replaces the circle with one of its own that lists the desktop, under a recovery member of its
        // own (it cannot sign as the account's).
        let fakeRecovery = try SyncDeviceKey.generate()
        let fakeKeys = SyncKeys.generate(generation: 1)
        let forged = SyncCircle(
            version: 1, generation: 1, members: [SyncCircle.Member(desktopKey, name: "desktop")],
            recovery: SyncCircle.Member(fakeRecovery, name: "recovery key"), keyCommitments: [1: fakeKeys.commitment])
        let signed = try SignedSyncCircle.sign(forged, by: fakeRecovery)
        let administrator = try server.connect()
        try administrator.execute("DELETE FROM clavis_sync.circles")
        try administrator.execute(
            "INSERT INTO clavis_sync.circles (account, version, circle, signature) VALUES ('alice', 1, $1, $2)",
            [.bytes(signed.body), .bytes(signed.signature)])
        let refused = #expect(throws: KeychainError.self) {
            _ = try SyncMembership.joined(device: desktopKey, request: request, store: store)
        }
        #expect(refused?.code == .verifyFailed)
        #expect(refused?.reason.contains("not the one it asked to join") == true)
        // A first version signed by a member rather than its recovery member is refused too.
        let byMember = try SignedSyncCircle.sign(forged, by: desktopKey)
        #expect(throws: KeychainError.self) { _ = try byMember.verified(trusting: nil) }
    }

    @Test func recordsARemovedDeviceWroteAreSealedAgainAndStillRead() throws {
        let server = try PostgresServer()
        var (laptop, desktopKey, request, store) = try laptopAndDesktop(server)
        let desktop = try #require(try SyncMembership.joined(device: desktopKey, request: request, store: store))
        let records = SyncRecordStore(database: store.database)
        let written = try SyncRecord.seal(
            item("from-desktop", secret: "written-by-the-desktop"), version: 1, keys: #require(desktop.currentKeys),
            by: desktopKey)
        try records.write(written, replacing: nil)
        try laptop.remove(desktopKey.identifier, store: store)
        // Every record is now signed by a member: a device joining afterwards reads them all.
        let phoneKey = try SyncDeviceKey.generate()
        let phoneRequest = try SyncMembership.requestJoin(device: phoneKey, name: "phone", store: store)
        try laptop.approve(code: phoneRequest.code, store: store)
        let phone = try #require(try SyncMembership.joined(device: phoneKey, request: phoneRequest, store: store))
        #expect(try secrets(readBy: phone, from: records) == ["written-by-the-desktop"])
        let record = try #require(try records.changes(after: 0).first?.record)
        #expect(record.writer == laptop.device.identifier && record.version == 2)
        // Codes are read as typed: O for 0, I and L for 1, any case.
        let tabletKey = try SyncDeviceKey.generate()
        let tablet = try SyncMembership.requestJoin(device: tabletKey, name: "tablet", store: store)
        let typed = String(tablet.code.map { $0 == "0" ? "o" : $0 == "1" ? "l" : $0 }).lowercased()
        #expect(try laptop.approve(code: typed, store: store).name == "tablet")
    }
}
