import ClavisClient
import ClavisCore
import ClavisIPC
import ClavisTestSupport
import Foundation
import Testing

/// Frames written straight at clavisd's socket, with every kind of bytes where a request carries its authentication
/// proof: a claimed passcode bound to the right keychain, the daemon's own current enrolment state, random session
/// ids, random and mutated bytes. None opens an access-controlled item; the same query opens it once the daemon's
/// own sensor made a match for the session it names.
@Suite(.serialized, .preparedKeychain) final class DaemonForgedProofTests {
    private var daemons: [TestDaemon] = []

    deinit {
        for daemon in daemons { daemon.stop() }
    }

    @Test func noProofBytesOpenAnAccessControlledItemUnlessTheDaemonMadeTheMatch() throws {
        let folder = try makeTemporaryFolder("forged-proof")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = folder + "/biometry.json"
        try Data(#"{"enrolled": ["right-index"], "outcomes": [], "whenEmpty": "match"}"#.utf8)
            .write(to: URL(fileURLWithPath: script))
        let daemon = try TestDaemon(mode: "user", options: ["--biometry-script", script])
        daemons.append(daemon)
        let client = try KeychainClient(configuration: ClavisConfiguration.current.with(daemonSocket: daemon.socket))
        try client.setPasscode(SecureBytes(Data("2468".utf8)), current: nil, strength: .cheapForTesting)
        let enrolment = try client.service.biometryStatus().enrolment.get()
        let keychain = try keychainIdentity(client)
        for (service, flags) in [
            ("by-passcode", AccessControl.Flags.devicePasscode), ("by-finger", .biometryCurrentSet),
        ] {
            let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: flags)
            guard
                case .done = try client.service.add(
                    NewItem(
                        itemClass: .genericPassword,
                        attributes: [
                            .service: .string(service), .accessible: .string("aku"),
                            .accessControl: .data(policy.encoded),
                        ],
                        secret: SecureBytes(Data("guarded \(service)".utf8))))
            else {
                Issue.record("the item could not be added")
                return
            }
        }

        var random = SystemRandomNumberGenerator()
        var connection = try SocketConnection(connectingTo: daemon.socket)
        var opened = 0
        var answered = 0
        for round in 0..<3_000 {
            let service = round % 2 == 0 ? "by-passcode" : "by-finger"
            let proof: [UInt8]
            switch round % 5 {
            case 0:  // everything a proof can claim, bound to this keychain, with the daemon's own enrolment
                proof = proofBytes(
                    passcode: true, keychain: keychain, enrolment: enrolment,
                    session: UInt64.random(in: 0...UInt64.max, using: &random))
            case 1:  // the same claims without a session
                proof = proofBytes(passcode: true, keychain: keychain, enrolment: enrolment, session: nil)
            case 2:  // random bytes where the proof is
                proof = [1] + randomBytes(count: Int.random(in: 0...96, using: &random), using: &random)
            case 3:  // a well-formed proof with bytes flipped
                var bytes = proofBytes(
                    passcode: true, keychain: keychain, enrolment: enrolment,
                    session: UInt64.random(in: 0...UInt64.max, using: &random))
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                proof = bytes
            default:  // a random enrolment of the right length and a small session id
                proof = proofBytes(
                    passcode: false, keychain: nil, enrolment: Data(randomBytes(count: 32, using: &random)),
                    session: UInt64(round))
            }
            let frame = Frame(requestID: UInt32(round), body: [2] + queryPrefix(service: service) + proof + [0])
            guard let response = try exchange(frame, on: &connection, socket: daemon.socket) else { continue }
            answered += 1
            if case .items(let items) = response, items.contains(where: { $0.secret != nil }) { opened += 1 }
        }
        #expect(opened == 0)
        #expect(answered > 1_000)

        // A match the daemon's sensor made for a session on another connection opens nothing here: sessions are
        // bound to their connection.
        let session = AuthenticationSessionID.random()
        let elsewhere = try client.service.scanBiometry(reason: "a test", session: session)
        #expect((try? elsewhere.get()) == enrolment)
        let genuine = proofBytes(passcode: false, keychain: nil, enrolment: enrolment, session: session.rawValue)
        let query = Frame(requestID: 1, body: [2] + queryPrefix(service: "by-finger") + genuine + [0])
        guard case .needsAuthentication = try exchange(query, on: &connection, socket: daemon.socket) else {
            Issue.record("a match made on another connection opened the item")
            return
        }

        // The same query, once the daemon's own sensor made the match for this connection's session, opens the item:
        // the frames above were read as the queries they look like.
        var scan = ByteWriter()
        Request.scanBiometry(reason: "a test", session).encode(to: &scan)
        guard
            case .biometricCheck(.success) = try exchange(
                Frame(requestID: 2, body: scan.bytes), on: &connection, socket: daemon.socket)
        else {
            Issue.record("the daemon's sensor made no match")
            return
        }
        let response = try exchange(query, on: &connection, socket: daemon.socket)
        guard case .items(let items) = response else {
            Issue.record("a proof the daemon made did not open the item: \(String(describing: response))")
            return
        }
        #expect(items.first?.secret == SecureBytes(Data("guarded by-finger".utf8)))
    }

    /// The keychain's identity, as a client binding a verified passcode to it would name it.
    private func keychainIdentity(_ client: KeychainClient) throws -> Data {
        let session = AuthenticationSessionID.random()
        return try client.service.verifyPasscode(SecureBytes(Data("2468".utf8)), session: session)
    }

    /// A find request's bytes up to its proof: one generic password by service, returning its secret.
    private func queryPrefix(service: String) -> [UInt8] {
        var writer = ByteWriter()
        writer.string(ItemClass.genericPassword.rawValue)
        writer.lengthPrefixed(AttributeCodec.encode([.service: .string(service)]))
        writer.uint32(0)  // no Secret Service attributes: their encoding, empty (wire version 2)
        writer.byte(0)  // not synchronizable
        writer.byte(0)  // no access groups named
        writer.byte(0)  // no persistent reference
        writer.byte(0)  // limit one
        writer.bool(true)  // return the secret
        writer.bool(true)  // and the attributes (wire version 3)
        return writer.bytes
    }

    /// A proof as the wire carries it.
    private func proofBytes(passcode: Bool, keychain: Data?, enrolment: Data?, session: UInt64?) -> [UInt8] {
        var writer = ByteWriter()
        writer.byte(1)
        writer.bool(passcode)
        writer.optional(keychain) { $0.lengthPrefixed($1) }
        writer.optional(enrolment) { $0.lengthPrefixed($1) }
        writer.byte(0)  // no application password
        writer.optional(session) { $0.uint64($1) }
        return writer.bytes
    }

    private func randomBytes(count: Int, using random: inout SystemRandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Sends `frame` and reads the answer; `nil` when the daemon closed the connection (it does so for a malformed
    /// request), after which a new connection is made.
    private func exchange(_ frame: Frame, on connection: inout SocketConnection, socket: String) throws -> Response? {
        do {
            try connection.send(frame)
            guard let answer = try connection.receive() else {
                connection = try SocketConnection(connectingTo: socket)
                return nil
            }
            var reader = ByteReader(answer.body, subject: "a response")
            return try Response(from: &reader)
        } catch {
            connection = try SocketConnection(connectingTo: socket)
            return nil
        }
    }
}
