import ClavisTestSupport
import Foundation

/// A clavisd in user mode serving the Secret Service on a session bus of the test's own (`PrivateBus`), and the
/// Secret Service's real clients run against it: `secret-tool` and Python (`secretstorage`, `keyring`, `jeepney`).
final class SecretServiceDaemon {
    let bus: PrivateBus
    let daemon: TestDaemon

    /// Starts the bus and the daemon (with `apps` registered, `options` added and `environment` beside the bus's, such
    /// as a scripted logind's system bus), and returns once the daemon owns `org.freedesktop.secrets`.
    init(apps: [String: [String: Any]] = [:], options: [String] = [], environment: [String: String] = [:]) throws {
        bus = try PrivateBus("secret-service-bus", kind: .session)
        do {
            daemon = try TestDaemon(
                mode: "user", apps: apps, options: options,
                environment: bus.environment.merging(environment) { own, _ in own })
        } catch {
            bus.stop()
            throw error
        }
        let said = daemon.waitForLog("org.freedesktop.secrets")
        guard said.contains("owns org.freedesktop.secrets") else {
            stop()
            throw TestDaemon.DaemonFailure(message: "clavisd does not serve the Secret Service: " + said)
        }
    }

    /// Runs `secret-tool` (or the copy at `executable`) on the bus.
    func secretTool(_ arguments: String..., executable: String = "/usr/bin/secret-tool", input: String? = nil)
        throws -> ProcessOutput
    {
        try runProcess(executable, arguments, environment: bus.environment, input: input)
    }

    /// Runs the Python `script` on the bus, with `environment` added.
    func python(_ script: String, environment: [String: String] = [:]) throws -> ProcessOutput {
        try runProcess(
            "/usr/bin/python3", ["-c", script], environment: bus.environment.merging(environment) { _, new in new })
    }

    /// Stops the daemon and the bus and removes their folders.
    func stop() {
        daemon.stop()
        bus.stop()
    }
}
