import ClavisClient
import ClavisCore

/// `status`: where the keychain is reached and why, its lock state, what its device key is bound to (a file or a
/// TPM), and who the keychain takes this process for.
struct StatusCommand: RunnableCommand {
    static let descriptor = CommandDescriptor(
        name: "status", summary: "Show where the keychain is (and why), its lock state and this caller's groups.",
        options: [], usesItems: false
    ) { (_) throws(UsageError) in StatusCommand() }

    func run(_ context: CommandContext) -> Int32 {
        let status: KeychainStatus
        do throws(KeychainError) {
            status = try KeychainClient().status()
        } catch {
            return context.fail("SecKeychainGetStatus", error)
        }
        let location: String
        let mode: String
        switch status.location {
        case .embedded(let home):
            (mode, location) = ("embedded", home)
        case .daemon(let socket):
            (mode, location) = ("daemon", socket)
        }
        // This process's own writes are none yet; the daemon's are every client's since it opened the keychain.
        let daemonWrites = mode == "daemon" ? status.writes : nil
        let lockout = status.passcodeLockout.map { "\(Int($0.timeIntervalSinceNow.rounded(.up))) s" }
        if context.json {
            var object: [String: JSONValue] = [
                "mode": .string(mode), "location": .string(location), "reason": .string(status.reason),
                "lockState": .string(status.lockState.rawValue), "hasPasscode": .bool(status.hasPasscode),
                "deviceKey": .string(status.deviceKey.rawValue),
                "applicationIdentifier": .string(status.applicationIdentifier),
                "accessGroups": .array(status.accessGroups.map { .string($0) }),
            ]
            if let lockout { object["passcodeLockout"] = .string(lockout) }
            if let writes = daemonWrites {
                object["writes"] = .integer(writes.writes)
                object["flushes"] = .integer(writes.flushes)
            }
            Console.out(ItemFormatter.jsonText(.object(object)))
        } else {
            var lines = [
                "mode: \(mode) (\(status.reason))", "keychain: \"\(ItemFormatter.printable(location))\"",
                "lock state: \(status.lockState.rawValue)", "passcode: \(status.hasPasscode ? "set" : "none")",
                "device key: \(status.deviceKey.rawValue)",
            ]
            if let lockout { lines.append("passcode attempts refused for: \(lockout)") }
            if let writes = daemonWrites {
                lines.append("writes since the daemon opened it: \(writes.writes), in \(writes.flushes) flushes")
            }
            lines.append("application identifier: \(ItemFormatter.printable(status.applicationIdentifier))")
            lines.append(
                "access groups: "
                    + status.accessGroups.map { "\"\(ItemFormatter.printable($0))\"" }.joined(separator: ", "))
            Console.out(lines.joined(separator: "\n"))
        }
        return ExitStatus.success
    }
}
