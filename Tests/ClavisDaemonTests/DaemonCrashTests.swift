import ClavisClient
import ClavisCore
import ClavisSQLite
import ClavisTestSupport
import Foundation
import Synchronization
import Testing

/// clavisd killed (SIGKILL) at random moments while clients write: nothing it acknowledged is lost, the database
/// stays sound, and the clients carry on once the daemon is back.
@Suite(.serialized, .preparedKeychain) struct DaemonCrashTests {
    @Test func killingTheDaemonMidWriteLosesNoAcknowledgedItem() throws {
        try killTheDaemonWhileWriting(writers: 1)
    }

    /// Eight writers at once: their adds share the daemon's flushes (group commit), and each is acknowledged only
    /// once the flush that holds it is on disk.
    @Test func killingTheDaemonAmongEightWritersLosesNoAcknowledgedItem() throws {
        try killTheDaemonWhileWriting(writers: 8)
    }

    /// 20 rounds of `writers` clients adding items through one daemon, killed once they have some acknowledged;
    /// then every acknowledged item must be there, whole, and the database sound.
    private func killTheDaemonWhileWriting(writers: Int) throws {
        var daemon = try TestDaemon(mode: "user")
        let folder = daemon.folder
        defer { daemon.stop() }
        let configuration = ClavisConfiguration.current.with(daemonSocket: daemon.socket)
        var acknowledged: [String] = []
        var random = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let clients = try (0..<writers).map { _ in try KeychainClient(configuration: configuration) }
            let wanted = Int.random(in: 1...25, using: &random) * writers
            let progress = DispatchSemaphore(value: 0)
            let stopped = DispatchSemaphore(value: 0)
            let written = Mutex<[String]>([])
            for (writer, client) in clients.enumerated() {
                Thread {
                    for index in 0... {
                        let account = "round\(round)-writer\(writer)-\(index)"
                        let item = NewItem(
                            itemClass: .genericPassword,
                            attributes: [.service: .string("crash"), .account: .string(account)],
                            secret: SecureBytes(Data(account.utf8)))
                        do {
                            _ = try client.add(item)
                        } catch {
                            stopped.signal()
                            return
                        }
                        written.withLock { $0.append(account) }
                        progress.signal()
                    }
                }.start()
            }
            // Wait for `wanted` acknowledged adds, then kill the daemon in the middle of the next ones.
            for _ in 0..<wanted { progress.wait() }
            daemon.kill()
            // Every writer's call failed: each has stopped, and writes nothing more.
            for _ in 0..<writers { stopped.wait() }
            acknowledged += written.withLock { $0 }
            daemon = try TestDaemon(mode: "user", reusing: folder)
        }
        // Every acknowledged add is there, read back through the restarted daemon.
        let client = try KeychainClient(configuration: configuration)
        let items = try client.find(
            ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("crash")], returnsSecret: true))
        let stored = Set(items.compactMap { $0.attributes[.account]?.stringValue })
        #expect(Set(acknowledged).isSubset(of: stored))
        #expect(acknowledged.count >= 20 * writers)
        for item in items {
            #expect(item.secret == SecureBytes(Data((item.attributes[.account]?.stringValue ?? "").utf8)))
        }
        daemon.terminate()
        let database = try Connection(path: folder + "/state/keychain.db", mode: .readOnly)
        #expect(try database.scalar("PRAGMA integrity_check")?.text == "ok")
    }
}
