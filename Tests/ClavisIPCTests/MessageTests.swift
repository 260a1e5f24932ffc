import ClavisCore
import ClavisIPC
import Foundation
import Testing

/// Requests and responses survive the trip byte for byte, and no input makes a reader trap.
@Suite struct MessageTests {
    private func roundTrip(_ request: Request) throws -> Request {
        var writer = ByteWriter()
        request.encode(to: &writer)
        var reader = ByteReader(writer.bytes, subject: "a request")
        return try Request(from: &reader)
    }

    private func roundTrip(_ response: Response) throws -> Response {
        var writer = ByteWriter()
        response.encode(to: &writer)
        var reader = ByteReader(writer.bytes, subject: "a response")
        return try Response(from: &reader)
    }

    @Test func anAddCarriesItsAttributesSecretAndProof() throws {
        let proof = AuthenticationProof(
            passcode: true, biometryEnrolment: Data([1, 2]), passcodeKeychain: Data([3]),
            applicationPassword: SecureBytes(Data("app".utf8)))
        let item = NewItem(
            itemClass: .internetPassword,
            attributes: [.server: .data(Data("h".utf8)), .port: .number(443), .account: .string("me")],
            secret: SecureBytes(Data([0, 255, 7])), authentication: proof)
        guard case .add(let back) = try roundTrip(.add(item)) else {
            Issue.record("not an add")
            return
        }
        #expect(back.itemClass == .internetPassword)
        #expect(back.attributes == item.attributes)
        #expect(back.secret == item.secret)
        #expect(back.authentication == proof)
    }

    @Test func aPurgeCarriesItsGroupsAndWhatItDeletedAndKept() throws {
        guard case .purgeAccessGroups(let groups) = try roundTrip(.purgeAccessGroups(["TEAM.a", "TEAM.shared"])) else {
            Issue.record("not a purge")
            return
        }
        #expect(groups == ["TEAM.a", "TEAM.shared"])
        let purge = AccessGroupPurge(deleted: 3, purgedGroups: ["TEAM.a"], keptGroups: ["TEAM.shared"])
        guard case .purge(let back) = try roundTrip(.purge(purge)) else {
            Issue.record("not a purge's answer")
            return
        }
        #expect(back == purge)
    }

    @Test func aLockedItemsQueryCarriesItsQueryAndItsAnswerTheReferences() throws {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("login")],
            secretServiceAttributes: ["user": "anna"], accessGroups: ["org.freedesktop.secrets"])
        guard case .lockedItemReferences(let back) = try roundTrip(.lockedItemReferences(query)) else {
            Issue.record("not a locked-items query")
            return
        }
        #expect(back.attributes == query.attributes)
        #expect(back.secretServiceAttributes == query.secretServiceAttributes)
        #expect(back.accessGroups == query.accessGroups)
        let references = [
            PersistentReference(bytes: Array("genp".utf8) + Array(repeating: 1, count: 16)),
            PersistentReference(bytes: Array("genp".utf8) + Array(repeating: 2, count: 16)),
        ]
        guard case .references(let answered) = try roundTrip(.references(references)) else {
            Issue.record("not a references answer")
            return
        }
        #expect(answered == references)
    }

    @Test func aQueryKeepsEveryField() throws {
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("s")],
            secretServiceAttributes: ["user": "anna", "service": "smtp"], synchronizable: .any,
            accessGroups: ["a", "b"], persistentReference: PersistentReference(bytes: Array(repeating: 9, count: 20)),
            limit: .count(7), returnsSecret: true, returnsAttributes: false, authentication: nil,
            unauthenticatedItems: .skip)
        guard
            case .update(let back, let changes) = try roundTrip(
                .update(query, ItemChanges(attributes: [.label: .string("l")], secret: nil)))
        else {
            Issue.record("not an update")
            return
        }
        #expect(back.attributes == query.attributes)
        #expect(back.secretServiceAttributes == ["user": "anna", "service": "smtp"])
        #expect(back.synchronizable == .any)
        #expect(back.accessGroups == ["a", "b"])
        #expect(back.persistentReference == query.persistentReference)
        #expect(back.limit == .count(7))
        #expect(back.returnsSecret && !back.returnsAttributes && back.unauthenticatedItems == .skip)
        #expect(changes.attributes == [.label: .string("l")] && changes.secret == nil)
    }

    @Test func answersKeepWhatTheClientMustDoAndErrorsKeepTheirPolicy() throws {
        let policy = AccessControl(protection: .whenUnlocked, flags: .userPresence)
        guard case .needsAuthentication(let back, let use) = try roundTrip(.needsAuthentication(policy, .seal)) else {
            Issue.record("not a pending authentication")
            return
        }
        #expect(back == policy && use == .seal)
        let failure = KeychainError(.authFailed, "wrong", pendingAccessControl: policy)
        guard case .failure(let error) = try roundTrip(.failure(failure)) else {
            Issue.record("not a failure")
            return
        }
        #expect(error.code == .authFailed && error.reason == "wrong" && error.pendingAccessControl == policy)
    }

    @Test func aStatusCarriesItsDeviceKeyBindingAndAnOlderDaemonsReadsAsAFile() throws {
        let status = KeychainStatus(
            location: .daemon(socket: "/run/clavis/clavisd.sock"), reason: "clavisd", lockState: .unlocked,
            hasPasscode: false, passcodeLockout: nil, applicationIdentifier: "app", accessGroups: ["group"],
            deviceKey: .tpm)
        guard case .status(let back) = try roundTrip(.status(status)) else {
            Issue.record("not a status")
            return
        }
        #expect(back == status)
        // An older daemon's status ends before the binding: the bytes without its last two fields (the binding, and
        // the one byte saying no write statistics follow).
        var writer = ByteWriter()
        Response.status(status).encode(to: &writer)
        let older = Array(writer.bytes.dropLast(1 + 4 + DeviceKeyBinding.tpm.rawValue.utf8.count))
        var reader = ByteReader(older, subject: "a response")
        guard case .status(let read) = try Response(from: &reader) else {
            Issue.record("not a status")
            return
        }
        #expect(read.deviceKey == .file && read.applicationIdentifier == "app" && read.writes == nil)
    }

    @Test func aStatusCarriesTheWritesAndFlushesAndAnOlderDaemonsHasNone() throws {
        var status = KeychainStatus(
            location: .daemon(socket: "/run/clavis/clavisd.sock"), reason: "clavisd", lockState: .locked,
            hasPasscode: true, passcodeLockout: nil, applicationIdentifier: "app", accessGroups: ["group"],
            deviceKey: .file, writes: WriteStatistics(writes: 12, flushes: 5))
        guard case .status(let back) = try roundTrip(.status(status)) else {
            Issue.record("not a status")
            return
        }
        #expect(back == status && back.writes == WriteStatistics(writes: 12, flushes: 5))
        status.writes = nil
        var writer = ByteWriter()
        Response.status(status).encode(to: &writer)
        var reader = ByteReader(Array(writer.bytes.dropLast(1)), subject: "a response")
        guard case .status(let older) = try Response(from: &reader) else {
            Issue.record("not a status")
            return
        }
        #expect(older == status)
    }

    @Test func aKeyUseCarriesItsItemInputAndProofAndItsResultComesBack() throws {
        let reference = PersistentReference(bytes: Array("keys".utf8) + Array(repeating: 5, count: 16))
        let proof = AuthenticationProof(passcode: false, biometryEnrolment: Data([4]))
        for use in [KeyUse.signDigest([1, 2, 3]), .agree(peerPublicKey: [4] + Array(repeating: 6, count: 64))] {
            guard case .useKey(let back, let backUse, let backProof) = try roundTrip(.useKey(reference, use, proof))
            else {
                Issue.record("not a key use")
                return
            }
            #expect(back == reference && backProof == proof)
            switch (use, backUse) {
            case (.signDigest(let sent), .signDigest(let received)): #expect(sent == received)
            case (.agree(let sent), .agree(let received)): #expect(sent == received)
            default: Issue.record("the key use changed on the way")
            }
        }
        guard case .useKey(_, _, nil) = try roundTrip(.useKey(reference, .signDigest([]), nil)) else {
            Issue.record("a use without a proof gained one")
            return
        }
        let item = NewItem(
            itemClass: .key, attributes: [.tokenID: .string(TokenKey.secureEnclave)], secret: SecureBytes(Data()))
        guard case .addGeneratedKey(let generated) = try roundTrip(.addGeneratedKey(item)) else {
            Issue.record("not a key generation")
            return
        }
        #expect(TokenKey.isHeld(generated.attributes))
        guard case .keyResult(let result) = try roundTrip(.keyResult(SecureBytes(Data([9, 8])))) else {
            Issue.record("not a key result")
            return
        }
        #expect(result == SecureBytes(Data([9, 8])))
    }

    @Test func randomAndTruncatedBytesAreDecodeErrorsNeverTraps() throws {
        var random = SystemRandomNumberGenerator()
        var writer = ByteWriter()
        Request.find(ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("x")])).encode(to: &writer)
        let valid = writer.bytes
        for cut in 0..<valid.count {
            var reader = ByteReader(Array(valid.prefix(cut)), subject: "a request")
            #expect(throws: KeychainError.self) { try Request(from: &reader) }
        }
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...48, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            var request = ByteReader(bytes, subject: "a request")
            _ = try? Request(from: &request)
            var response = ByteReader(bytes, subject: "a response")
            _ = try? Response(from: &response)
        }
    }
}
