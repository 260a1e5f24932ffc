import ClavisClient
import ClavisCore
import ClavisIPC
import ClavisTestSupport
import Foundation
import Security
import Testing

/// clavisd in system mode, as its own user: apps see only their own groups, whatever they claim; the files are the
/// daemon's; one lock state serves every client; bad frames close one connection and nothing else.
@Suite(.serialized, .preparedKeychain) final class DaemonTests {
    private var daemons: [TestDaemon] = []

    deinit {
        for daemon in daemons { daemon.stop() }
    }

    /// A system-mode daemon with app A (group `TEAM.a`, pinned to its SHA-256) and app B (groups `TEAM.b`,
    /// `TEAM.shared`) registered, each a copy of `clavis`.
    private func twoApps() throws -> (daemon: TestDaemon, a: String, b: String) {
        let staging = try TestDaemon(mode: "user")
        let a = try staging.copyOfClavis(named: "app-a")
        let b = try staging.copyOfClavis(named: "app-b")
        staging.kill()
        let digest = try TestDaemon.run("/usr/bin/sha256sum", [a]).standardOutput.prefix(64)
        let daemon = try TestDaemon(
            mode: "system",
            apps: [
                "a.json": [
                    "executable": a, "sha256": String(digest), "application-identifier": "TEAM.a",
                    "keychain-administrator": true,
                ],
                "b.json": [
                    "executable": b, "application-identifier": "TEAM.b", "keychain-access-groups": ["TEAM.shared"],
                ],
            ])
        daemons.append(daemon)
        return (daemon, a, b)
    }

    @Test func anAppSeesOnlyItsOwnGroupsWhateverItClaims() throws {
        let (daemon, a, b) = try twoApps()
        #expect(
            try daemon.client(["add-generic-password", "-a", "me", "-s", "vault", "-w", "a-secret"], executable: a)
                .status == 0)
        let statusOfA = try daemon.client(["--json", "status"], executable: a)
        #expect(statusOfA.standardOutput.contains("\"TEAM.a\""))
        #expect(statusOfA.standardOutput.contains("\"daemon\""))

        // B: no group named: not found. A's group named: missing entitlement. The same when B claims A's groups.
        let find = ["find-generic-password", "-a", "me", "-s", "vault", "-w"]
        #expect(try daemon.client(find, executable: b).status == 44)
        #expect(try daemon.client(find + ["--access-group", "TEAM.a"], executable: b).status == 30)
        let claim = try writeEntitlements(
            in: daemon.folder, name: "claim", applicationIdentifier: "TEAM.a", groups: ["TEAM.a"])
        #expect(try daemon.client(find, executable: b, environment: ["CLAVIS_ENTITLEMENTS": claim]).status == 44)
        #expect(
            try daemon.client(
                find + ["--access-group", "TEAM.a"], executable: b, environment: ["CLAVIS_ENTITLEMENTS": claim]
            ).status == 30)
        #expect(try daemon.client(["delete-generic-password", "-a", "me", "-s", "vault"], executable: b).status == 44)
        let dump = try daemon.client(["dump-keychain"], executable: b)
        #expect(!dump.standardOutput.contains("vault"))

        // A still reads its item.
        let read = try daemon.client(find, executable: a)
        #expect(read.status == 0)
        #expect(read.standardOutput == "a-secret\n")
    }

    @Test func anotherAppCannotUseAnAppsPersistentReference() throws {
        // A is a copy of clavis; B is this test process, registered with its own group. A user-mode daemon (this
        // user's): the test executable may live where the system daemon's user cannot look, and the groups are
        // enforced the same in both modes.
        let staging = try TestDaemon(mode: "user")
        let a = try staging.copyOfClavis(named: "app-a")
        staging.kill()
        let tests = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let daemon = try TestDaemon(
            mode: "user",
            apps: [
                "a.json": ["executable": a, "application-identifier": "TEAM.a"],
                "b.json": ["executable": tests, "application-identifier": "TEAM.b"],
            ])
        daemons.append(daemon)
        let add = ["add-generic-password", "-a", "me", "-s", "vault", "-w", "a-secret"]
        #expect(try daemon.client(add, executable: a).status == 0)
        let dump = try daemon.client(["--json", "dump-keychain"], executable: a)
        let items = try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [[String: Any]]
        let reference = try #require(
            (items?.first?["persistentReference"] as? String).flatMap { Data(base64Encoded: $0) })
        ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(daemonSocket: daemon.socket)) {
            #expect((try? KeychainClient().status().applicationIdentifier) == "TEAM.b")
            let byReference: [String: Any] = [
                kSecValuePersistentRef as String: reference, kSecReturnData as String: true,
            ]
            var found: CFTypeRef?
            #expect(SecItemCopyMatching(byReference as CFDictionary, &found) == errSecItemNotFound)
            let plain = [kSecValuePersistentRef as String: reference] as CFDictionary
            #expect(
                SecItemUpdate(plain, [kSecValueData as String: Data("x".utf8)] as CFDictionary) == errSecItemNotFound)
            #expect(SecItemDelete(plain) == errSecItemNotFound)
        }
        let read = try daemon.client(["find-generic-password", "-s", "vault", "-w"], executable: a)
        #expect(read.standardOutput == "a-secret\n")
    }

    @Test func anUnregisteredOrChangedExecutableGetsOnlyAPrivateGroup() throws {
        let (daemon, a, _) = try twoApps()
        let stranger = try daemon.copyOfClavis(named: "stranger")
        #expect(
            try daemon.client(["add-generic-password", "-a", "me", "-s", "vault", "-w", "a"], executable: a).status == 0
        )
        #expect(
            try daemon.client(["add-generic-password", "-a", "me", "-s", "own", "-w", "mine"], executable: stranger)
                .status == 0)
        let own = try daemon.client(["find-generic-password", "-s", "own", "-w"], executable: stranger)
        #expect(own.standardOutput == "mine\n")
        #expect(try daemon.client(["find-generic-password", "-s", "vault"], executable: stranger).status == 44)
        let status = try daemon.client(["status"], executable: stranger)
        #expect(status.standardOutput.contains("application identifier: exe:\(stranger)"))

        // A binary that no longer hashes to its registration loses the registered groups.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: a))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let changed = try daemon.client(["status"], executable: a)
        #expect(changed.standardOutput.contains("application identifier: exe:\(a)"))
        #expect(try daemon.client(["find-generic-password", "-s", "vault"], executable: a).status == 44)
    }

    @Test func clavisAppRegistersListsAndRemovesAndTheDaemonFollowsWithoutARestart() throws {
        let daemon = try TestDaemon(mode: "system")
        daemons.append(daemon)
        let app = try daemon.copyOfClavis(named: "app-x")
        #expect(try daemon.client(["status"], executable: app).standardOutput.contains("exe:\(app)"))
        let entitlements = try writeEntitlements(
            in: daemon.folder, name: "x", applicationIdentifier: "TEAM.x", groups: ["TEAM.shared"])
        let register = try ClavisBinary.run(
            [
                "app", "register", "--executable", app, "--entitlements", entitlements, "--pin", "--registry",
                daemon.registry,
            ],
            home: daemon.folder + "/unused")
        #expect(register.status == 0, "\(register.standardError)")
        let status = try daemon.client(["--json", "status"], executable: app).standardOutput
        #expect(status.contains("\"applicationIdentifier\" : \"TEAM.x\""))
        #expect(status.contains("\"TEAM.shared\""))
        let list = try ClavisBinary.run(["--json", "app", "list", "--registry", daemon.registry], home: daemon.folder)
        let apps = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]]
        #expect(apps?.count == 1)
        #expect(apps?.first?["executable"] as? String == app)
        #expect((apps?.first?["sha256"] as? String)?.count == 64)
        let remove = try ClavisBinary.run(
            ["app", "remove", "TEAM.x", "--registry", daemon.registry], home: daemon.folder)
        #expect(remove.status == 0)
        #expect(try daemon.client(["status"], executable: app).standardOutput.contains("exe:\(app)"))
        let again = try ClavisBinary.run(
            ["app", "remove", "TEAM.x", "--registry", daemon.registry], home: daemon.folder)
        #expect(again.status == 44)
    }

    @Test func theFilesBelongToTheDaemonAndNoOtherUserOpensThem() throws {
        let (daemon, a, _) = try twoApps()
        #expect(
            try daemon.client(["add-generic-password", "-a", "me", "-s", "vault", "-w", "a"], executable: a).status == 0
        )
        let folder = daemon.state + "/0"
        let attributes = try FileManager.default.attributesOfItem(atPath: folder)
        #expect(attributes[.ownerAccountName] as? String == TestDaemon.user)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        let other = try runProcess(
            "/usr/bin/setpriv",
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/cat", folder + "/device.key"])
        #expect(other.status != 0)
        let listing = try runProcess(
            "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/ls", daemon.state])
        #expect(listing.status != 0)
    }

    @Test func onlyAnAdministratorSetsThePasscode() throws {
        let (daemon, a, b) = try twoApps()
        let refused = try daemon.client(["set-keychain-password", "-p", "1357"], executable: b)
        #expect(refused.status == 30, "\(refused.standardError)")
        #expect(refused.standardError.contains("keychain administrator"))
        #expect(try daemon.client(["status"], executable: b).standardOutput.contains("passcode: none"))
        #expect(try daemon.client(["set-keychain-password", "-p", "1357"], executable: a).status == 0)
    }

    @Test func oneLockStateServesEveryClient() throws {
        let (daemon, a, b) = try twoApps()
        #expect(try daemon.client(["set-keychain-password", "-p", "2468"], executable: a).status == 0)
        #expect(
            try daemon.client(["add-generic-password", "-a", "me", "-s", "vault", "-w", "a"], executable: a).status == 0
        )
        #expect(
            try daemon.client(["add-generic-password", "-a", "me", "-s", "bees", "-w", "b"], executable: b).status == 0)
        // Locked by A: B's process, and every later one, finds its WhenUnlocked item closed (no one to ask).
        #expect(try daemon.client(["lock-keychain"], executable: a).status == 0)
        #expect(try daemon.client(["find-generic-password", "-s", "bees", "-w"], executable: b).status == 36)
        #expect(try daemon.client(["find-generic-password", "-s", "vault", "-w"], executable: a).status == 36)
        // Unlocked through B: A reads at once.
        #expect(try daemon.client(["unlock-keychain", "-p", "2468"], executable: b).status == 0)
        #expect(
            try daemon.client(["find-generic-password", "-s", "vault", "-w"], executable: a).standardOutput == "a\n")
    }

    /// A plain connection to the daemon's socket, for bytes no client would send.
    private static func rawConnection(to path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(connected == 0)
        return descriptor
    }

    /// A client of another Clavis version hears which version the daemon speaks (a header of its version, no body)
    /// before the connection closes, so that it can say so instead of reporting a broken connection.
    @Test(.timeLimit(.minutes(1))) func aClientOfAnotherVersionHearsTheDaemonsVersion() throws {
        let daemon = try TestDaemon(mode: "user")
        daemons.append(daemon)
        let descriptor = try Self.rawConnection(to: daemon.socket)
        defer { close(descriptor) }
        let later = Array("CLVS".utf8) + [9, 0, 0, 0, 1, 0, 0, 0, 1, 9]
        #expect(send(descriptor, later, later.count, Int32(MSG_NOSIGNAL)) == later.count)
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            answer += chunk[0..<count]
        }
        #expect(answer == Array("CLVS".utf8) + [Frame.version] + [UInt8](repeating: 0, count: 8))
    }

    @Test func malformedFramesCloseTheirConnectionAndTheDaemonAnswersOn() throws {
        let (daemon, a, _) = try twoApps()
        #expect(
            try daemon.client(["add-generic-password", "-a", "me", "-s", "vault", "-w", "a"], executable: a).status == 0
        )
        var random = SystemRandomNumberGenerator()
        let header = Array("CLVS".utf8) + [Frame.version]
        for round in 0..<100_000 {
            let descriptor = try Self.rawConnection(to: daemon.socket)
            var bytes: [UInt8]
            switch round % 4 {
            case 0:
                bytes = (0..<Int.random(in: 1...64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            case 1: bytes = header + [0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]  // a huge length
            case 2: bytes = header + [0, 0, 0, 1, 0, 0, 0, 40] + [1, 2, 3]  // truncated body
            default:
                let body = (0..<40).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes = header + [0, 0, 0, 1, 0, 0, 0, UInt8(body.count)] + body  // a valid header, garbage body
            }
            _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(descriptor)
        }
        let read = try daemon.client(["find-generic-password", "-s", "vault", "-w"], executable: a)
        #expect(read.status == 0)
        #expect(read.standardOutput == "a\n")
    }

    /// A proof counts only as far as the daemon's own record of its session confirms it: a claimed passcode opens
    /// nothing, a passcode the daemon verified for one session opens for that session only.
    @Test func aClaimedPasscodeOpensNothingUntilTheDaemonVerifiedItForThatSession() throws {
        let daemon = try TestDaemon(mode: "user")
        daemons.append(daemon)
        let client = try KeychainClient(configuration: ClavisConfiguration.current.with(daemonSocket: daemon.socket))
        try client.setPasscode(SecureBytes(Data("2468".utf8)), current: nil, strength: .cheapForTesting)
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .devicePasscode)
        _ = try client.service.add(
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .service: .string("guarded"), .accessible: .string("aku"), .accessControl: .data(policy.encoded),
                ],
                secret: SecureBytes(Data("behind the passcode".utf8))))
        let session = AuthenticationSessionID.random()
        func query(_ proof: AuthenticationProof) -> ItemQuery {
            ItemQuery(
                itemClass: .genericPassword, attributes: [.service: .string("guarded")], limit: .one,
                returnsSecret: true, authentication: proof)
        }
        let forged = query(AuthenticationProof(passcode: true, session: session))
        guard case .needsAuthentication = try client.service.find(forged) else {
            Issue.record("a claimed passcode opened the item")
            return
        }
        _ = try client.service.verifyPasscode(SecureBytes(Data("2468".utf8)), session: session)
        guard case .done(let items) = try client.service.find(forged) else {
            Issue.record("the passcode the daemon verified did not open the item")
            return
        }
        #expect(items.first?.secret == SecureBytes(Data("behind the passcode".utf8)))
        let otherSession = query(AuthenticationProof(passcode: true, session: .random()))
        guard case .needsAuthentication = try client.service.find(otherSession) else {
            Issue.record("a passcode verified for one session opened the item for another")
            return
        }
        try client.service.endAuthenticationSession(session)
        guard case .needsAuthentication = try client.service.find(forged) else {
            Issue.record("an ended session still opened the item")
            return
        }
    }

    @Test func aUserModeDaemonServesItsUserThroughSecurityAndRefusesOthers() throws {
        let daemon = try TestDaemon(mode: "user")
        daemons.append(daemon)
        let service = TestKeychain.uniqueService()
        try ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(daemonSocket: daemon.socket)) {
            let added: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: "me", kSecValueData as String: Data("through the daemon".utf8),
            ]
            #expect(SecItemAdd(added as CFDictionary, nil) == errSecSuccess)
            var result: CFTypeRef?
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecReturnData as String: true,
            ]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("through the daemon".utf8))
            let location = try KeychainClient().status().location
            #expect(location == .daemon(socket: daemon.socket))
        }
        // Another user's process is refused by a user-mode daemon.
        chmod(daemon.folder + "/run", 0o755)
        chmod(daemon.socket, 0o777)
        let other = try runProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", ClavisBinary.path, "find-generic-password", "-s",
                service,
            ],
            environment: ["CLAVIS_SOCKET": daemon.socket, "CLAVIS_HOME": "/nonexistent"])
        #expect(other.status == 30, "\(other.standardError)")
    }
}
