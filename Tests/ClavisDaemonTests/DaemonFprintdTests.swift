import ClavisClient
import ClavisCore
import ClavisTestSupport
import Foundation
import Testing

/// clavisd's fingerprint sensor: fprintd on the system D-Bus (here a bus of the test's own with a scripted fprintd),
/// asked about the fingers of the peer's user, never of the daemon's own user or of a name the client sends.
@Suite(.serialized, .preparedKeychain) final class DaemonFprintdTests {
    private var daemons: [TestDaemon] = []
    private var buses: [ScriptedFprintd] = []

    deinit {
        for daemon in daemons { daemon.stop() }
        for bus in buses { bus.stop() }
    }

    @Test func fprintdOnTheSystemBusChecksThePeersFingersAndAnEnrolmentChangeLocksTheItem() throws {
        let fprintd = try ScriptedFprintd(
            enrolled: ["root": ["right-index-finger"]], outcomes: ["verify-no-match", "verify-match"])
        buses.append(fprintd)
        // Only a registered administrator may set the passcode in system mode: a copy of clavis, registered so.
        let staging = try TestDaemon(mode: "user")
        let administrator = try staging.copyOfClavis(named: "administrator")
        staging.kill()
        daemons.append(staging)
        let daemon = try TestDaemon(
            mode: "system",
            apps: [
                "administrator.json": [
                    "executable": administrator, "application-identifier": "TEAM.admin",
                    "keychain-administrator": true,
                ]
            ], environment: fprintd.environment)
        daemons.append(daemon)
        #expect(try daemon.client(["set-keychain-password", "-p", "2468"], executable: administrator).status == 0)
        let client = try KeychainClient(configuration: ClavisConfiguration.current.with(daemonSocket: daemon.socket))

        let status = try client.service.biometryStatus()
        #expect(status.kind == .fingerprint)
        let enrolment = try status.enrolment.get()
        let policy = AccessControl(protection: .whenUnlocked, flags: .biometryCurrentSet)
        _ = try client.service.add(
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .service: .string("by-finger"), .accessible: .string("ak"), .accessControl: .data(policy.encoded),
                ],
                secret: SecureBytes(Data("under a finger".utf8))))
        let session = AuthenticationSessionID.random()
        func read(with enrolment: Data?) throws -> ServiceAnswer<[Item]> {
            try client.service.find(
                ItemQuery(
                    itemClass: .genericPassword, attributes: [.service: .string("by-finger")], limit: .one,
                    returnsSecret: true,
                    authentication: AuthenticationProof(biometryEnrolment: enrolment, session: session)))
        }
        guard case .needsAuthentication = try read(with: nil) else {
            Issue.record("the item opened without a finger")
            return
        }

        // A finger that does not match, then one that does: fprintd's verdicts, for root (the peer), not for the
        // daemon's own user.
        #expect(try client.service.scanBiometry(reason: "a test", session: session) == .failure(.authenticationFailed))
        #expect(try client.service.scanBiometry(reason: "a test", session: session) == .success(enrolment))
        guard case .done(let items) = try read(with: enrolment) else {
            Issue.record("a match fprintd made did not open the item")
            return
        }
        #expect(items.first?.secret == SecureBytes(Data("under a finger".utf8)))
        #expect(fprintd.calls.contains("Claim root"))
        #expect(fprintd.calls.allSatisfy { $0.hasSuffix(" root") }, "\(fprintd.calls)")
        #expect(fprintd.calls.filter { $0 == "Release root" }.count == 2, "each verification releases the reader")

        // Another finger enrolled: the enrolment state changes, and a match under it no longer opens the item.
        try fprintd.write(enrolled: ["root": ["right-index-finger", "left-thumb"]], outcomes: ["verify-match"])
        let changed = try client.service.biometryStatus().enrolment.get()
        #expect(changed != enrolment)
        #expect(try client.service.scanBiometry(reason: "a test", session: session) == .success(changed))
        do {
            _ = try read(with: changed)
            Issue.record("a match under a new enrolment opened a biometryCurrentSet item")
        } catch {
            #expect(
                (error as? ClavisCore.KeychainError)?.code == .authFailed,
                "unreadable for good, as Apple's keychain answers")
        }

        // Nothing enrolled for the peer's user: not enrolled, and no verification is started.
        try fprintd.write(enrolled: ["someone-else": ["right-index-finger"]], outcomes: ["verify-match"])
        #expect(try client.service.biometryStatus().enrolment == .failure(.biometryNotEnrolled))
        #expect(try client.service.scanBiometry(reason: "a test", session: session) == .failure(.biometryNotEnrolled))
    }
}
