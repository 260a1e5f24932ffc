import ClavisClient
import ClavisCore
import ClavisCrypto
import ClavisTestSupport
import Foundation
import Security
import Testing

/// The access-control tests' world: a keychain with a passcode, the scripted biometric sensor and an askpass
/// program, all in the test process's temporary folder.
///
/// The environment names the sensor's script and the askpass program once (`TestKeychain`); the tests that change
/// the script or the askpass answer run serialized (`AccessControlSuites`). Their items live in their own keychain
/// (`ClavisWithKeychainHome`), because it has a passcode, which the other suites' shared keychain must not have.
enum ACL {
    /// The passcode of the access-control keychain.
    static let passcode = "1234"

    /// The keychain folder, created with its passcode on first use.
    static let home: String = {
        TestKeychain.prepare()
        let home = TestKeychain.home + "/acl-home"
        writeAskpass()
        answer(passcode)
        withKeychainHome(home) {
            try! KeychainClient().setPasscode(
                SecureBytes(Data(passcode.utf8)), current: nil, strength: .cheapForTesting)
        }
        return home
    }()

    /// Runs `body` on the access-control keychain.
    @discardableResult
    static func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        try withKeychainHome(home, body)
    }

    /// Runs `body` on the access-control keychain.
    @discardableResult
    static func run<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await withKeychainHome(home, body)
    }

    // MARK: The scripted sensor

    /// The sensor's script file.
    static var scriptPath: String { TestKeychain.home + "/biometry.json" }

    /// Writes a fresh script: the enrolled set, the next outcomes, no failures, not locked out.
    static func script(enrolled: [String] = ["right-index", "left-thumb"], outcomes: [String] = []) {
        _ = home
        let script: [String: Any] = ["enrolled": enrolled, "outcomes": outcomes, "whenEmpty": "cancel"]
        let data = try! JSONSerialization.data(withJSONObject: script)
        try! data.write(to: URL(fileURLWithPath: scriptPath))
    }

    /// Changes the enrolled set, keeping the rest of the script.
    static func enrol(_ enrolled: [String], outcomes: [String]) {
        var script = scriptContents()
        script["enrolled"] = enrolled
        script["outcomes"] = outcomes
        let data = try! JSONSerialization.data(withJSONObject: script)
        try! data.write(to: URL(fileURLWithPath: scriptPath))
    }

    /// The script as it is now.
    static func scriptContents() -> [String: Any] {
        let data = FileManager.default.contents(atPath: scriptPath) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// The outcomes not yet consumed.
    static var remainingOutcomes: [String] { scriptContents()["outcomes"] as? [String] ?? [] }

    /// SHA-256 over the sorted names, each followed by a zero byte: the documented enrolment state.
    static func enrolmentState(_ enrolled: [String]) -> Data {
        var bytes = [UInt8]()
        for name in enrolled.sorted() { bytes += Array(name.utf8) + [0] }
        return Data(SHA256.hash(bytes))
    }

    // MARK: The askpass program

    /// The askpass program: logs its arguments, answers with the answer file's first line (consuming it while more
    /// follow: `answer(lines:)`), exits 1 for CANCEL; an answer starting with "GATED " is given only once the test
    /// opens the gate (`gateAskpass`), like a person still typing until then.
    static var askpassPath: String { TestKeychain.home + "/askpass" }
    static var answerPath: String { TestKeychain.home + "/askpass-answer" }
    static var callsPath: String { TestKeychain.home + "/askpass-calls" }
    static var gatePath: String { TestKeychain.home + "/askpass-gate" }

    /// The gate a "GATED " answer waits at: the askpass program answers once the gate file exists.
    struct AskpassGate {
        /// Lets the waiting askpass program answer.
        func open() {
            _ = FileManager.default.createFile(atPath: ACL.gatePath, contents: Data())
        }
    }

    /// Closes the gate for the next "GATED " answer.
    static func gateAskpass() -> AskpassGate {
        unlink(gatePath)
        return AskpassGate()
    }

    /// Returns true once the askpass program has been called `count` times since the last answer was set; false
    /// when it has not been after 30 seconds (the test then fails rather than hangs).
    static func waitForAskpassCalls(_ count: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while askpassCalls.count < count {
            guard ContinuousClock.now < deadline else { return false }
            usleep(1000)
        }
        return true
    }

    private static func writeAskpass() {
        let script = """
            #!/bin/sh
            printf '%s\\n' "$#|$*" >> '\(callsPath)'
            answer=$(head -n 1 '\(answerPath)')
            if [ "$(wc -l < '\(answerPath)')" -gt 1 ]; then
                tail -n +2 '\(answerPath)' > '\(answerPath).next' && mv '\(answerPath).next' '\(answerPath)'
            fi
            [ "$answer" = CANCEL ] && exit 1
            case "$answer" in "GATED "*)
                while [ ! -e '\(gatePath)' ]; do sleep 0.01; done; answer=${answer#GATED } ;;
            esac
            printf '%s\\n' "$answer"

            """
        try! script.write(toFile: askpassPath, atomically: true, encoding: .utf8)
        chmod(askpassPath, 0o755)
    }

    /// Sets what the askpass program answers next (`"CANCEL"` cancels) and clears its call log.
    static func answer(_ text: String) {
        answer(lines: [text])
    }

    /// Sets the askpass program's answers, one per call; the last one then stands for every later call.
    static func answer(lines: [String]) {
        try! (lines.joined(separator: "\n") + "\n").write(toFile: answerPath, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: callsPath)
    }

    /// Each askpass call's arguments, as "count|arguments".
    static var askpassCalls: [String] {
        (try? String(contentsOfFile: callsPath, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    // MARK: Items

    /// An access-control object, failing the test when the flags are refused.
    static func access(
        _ flags: SecAccessControlCreateFlags, _ protection: CFString = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
    ) -> SecAccessControl {
        SecAccessControlCreateWithFlags(nil, protection, flags, nil)!
    }

    /// Adds a generic password with an access control.
    @discardableResult
    static func add(service: String, account: String = "a", secret: String = "s3cret", _ access: SecAccessControl)
        -> OSStatus
    {
        addGenericPassword(
            service: service, account: account, data: Data(secret.utf8),
            extra: [kSecAttrAccessControl as String: access])
    }

    /// Reads an item's secret with extra query keys; returns the status and the secret as text.
    static func read(service: String, account: String = "a", _ extra: [String: Any] = [:]) -> (OSStatus, String?) {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true,
        ]
        query.merge(extra) { _, new in new }
        let (status, result) = copyMatching(query)
        return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
    }

    /// Query keys that forbid prompting.
    static var noUI: [String: Any] { [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail] }
}
