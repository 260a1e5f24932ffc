import ClavisClient
import ClavisCore
import ClavisTestSupport
import Foundation
import Security

/// A keychain of its own whose scripted sensor reads a script of its own, so that the access-control suites, which
/// rewrite theirs while a test using it runs, cannot consume or replace that test's outcomes; with a passcode, as on
/// the access-control suites' keychain.
struct OwnSensorKeychain {
    let home: String
    let script: String

    init() throws {
        let folder = try makeTemporaryFolder("clavis-enclave-acl")
        home = folder + "/home"
        script = folder + "/biometry.json"
        write(outcomes: [])
        // A passcode, as on the access-control suites' keychain.
        let passcode = SecureBytes(Data(ACL.passcode.utf8))
        try run { try KeychainClient().setPasscode(passcode, current: nil, strength: .cheapForTesting) }
    }

    /// The sensor's next outcomes, with one finger enrolled.
    func write(outcomes: [String]) {
        let contents: [String: Any] = ["enrolled": ["right-index"], "outcomes": outcomes, "whenEmpty": "cancel"]
        try! JSONSerialization.data(withJSONObject: contents).write(to: URL(fileURLWithPath: script))
    }

    /// The outcomes not yet consumed.
    var remainingOutcomes: [String] {
        let data = FileManager.default.contents(atPath: script) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["outcomes"] as? [String] ?? []
    }

    private var configuration: ClavisConfiguration {
        var configuration = ClavisConfiguration.current.with(home: home)
        configuration.biometryScript = script
        let socket = TestKeychain.daemonSocket(home: home, biometryScript: script)
        return configuration.with(daemonSocket: socket ?? configuration.daemonSocket)
    }

    func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        try ClavisConfiguration.withConfiguration(configuration, body)
    }

    func run<Result>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result)
        async rethrows
        -> Result
    {
        try await ClavisConfiguration.withConfiguration(configuration, body)
    }
}
