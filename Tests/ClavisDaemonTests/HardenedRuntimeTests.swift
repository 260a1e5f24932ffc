import ClavisTestSupport
import Foundation
import Testing

/// A registered app's process is treated as the app only while no other code can run as it: traced, started with
/// a loader override, or running code from a file its user could change, it is served as unregistered, and the
/// access log says why.
@Suite(.serialized) final class HardenedRuntimeTests {
    let apps: RegisteredAppsFixture
    let find = ["find-generic-password", "-a", "me", "-s", "vault", "-w"]

    init() throws {
        apps = try RegisteredAppsFixture()
    }

    /// The reasons the access log gives for the requests of processes served as unregistered.
    private func reasons() throws -> [String] {
        try apps.accessLog().compactMap { line in
            guard let entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return entry["unregisteredBecause"] as? String
        }
    }

    /// A copy of the system's libm that the user owns (and so could change).
    private func librariesTheUserOwns() throws -> String {
        let folder = apps.folder + "/user-libraries"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let library = folder + "/libm.so.6"
        let system = try runProcess("/bin/sh", ["-c", "ldconfig -p | awk '/libm.so.6 .*x86-64/ {print $NF; exit}'"])
        try FileManager.default.copyItem(
            atPath: system.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines), toPath: library)
        for path in [folder, library] { chown(path, apps.user.uid, apps.user.gid) }
        return folder
    }

    @Test func anAppStartedWithALoaderOverrideIsServedAsUnregistered() throws {
        #expect(try apps.asUser(apps.writer, find).standardOutput == RegisteredAppsFixture.secret + "\n")
        let preloaded = try apps.asUser(apps.writer, find, environment: ["LD_PRELOAD": "libm.so.6"])
        #expect(preloaded.status == 44, "\(preloaded.standardOutput) \(preloaded.standardError)")
        let libraries = try librariesTheUserOwns()
        let searched = try apps.asUser(apps.writer, find, environment: ["LD_LIBRARY_PATH": libraries])
        #expect(searched.status == 44, "\(searched.standardOutput) \(searched.standardError)")
        let reasons = try reasons()
        #expect(reasons.contains { $0.contains("not treated as TEAM.writer") && $0.contains("LD_PRELOAD set") })
        #expect(reasons.contains { $0.contains("LD_LIBRARY_PATH set") }, "\(reasons)")
    }

    @Test func anAppTracedFromItsStartIsServedAsUnregistered() throws {
        let traced = try apps.asUser(apps.writer, find, wrapper: ["/usr/bin/strace", "-f", "-o", "/dev/null"])
        #expect(traced.status == 44, "\(traced.standardOutput) \(traced.standardError)")
        #expect(try reasons().contains { $0.contains("it is traced by process") })
    }

    /// The registered python app loads a library (from `argv[3]`, when given) and asks for the secret.
    private static let loadThenAsk =
        RegisteredAppsFixture.askForTheSecret + "\n" + #"""
            import ctypes
            path, body = sys.argv[1], bytes.fromhex(sys.argv[2])
            SECRET = sys.argv[4].encode()
            if sys.argv[3]:
                ctypes.CDLL(sys.argv[3])
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            print(ask(s, body), flush=True)
            """#

    @Test func anAppRunningCodeFromAFileItsUserCouldChangeIsServedAsUnregistered() throws {
        let script = apps.folder + "/load-then-ask.py"
        try Self.loadThenAsk.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let arguments = [script, apps.daemon.socket, RegisteredAppsFixture.findRequest]
        let plain = try apps.asUser(apps.python, arguments + ["", RegisteredAppsFixture.secret])
        #expect(plain.standardOutput == "answer 4 secret\n", "\(plain.standardError)")
        let library = try librariesTheUserOwns() + "/libm.so.6"
        let loaded = try apps.asUser(apps.python, arguments + [library, RegisteredAppsFixture.secret])
        #expect(loaded.standardOutput == "answer 0 nothing\n", "\(loaded.standardError)")
        #expect(
            try reasons().contains {
                $0.contains("not treated as TEAM.python") && $0.contains("runs code from \(library)")
                    && $0.contains("belongs to user \(apps.user.uid)")
            })
    }
}
