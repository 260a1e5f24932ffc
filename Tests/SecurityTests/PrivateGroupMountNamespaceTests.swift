import Foundation
import Testing

/// An unregistered program's private group is named by its path: only the file at that path in the daemon's view
/// reaches it, not another binary bound over the path in a mount namespace of the caller's.
@Suite(.serialized) final class PrivateGroupMountNamespaceTests {
    let apps: RegisteredAppsFixture

    init() throws {
        apps = try RegisteredAppsFixture()
    }

    @Test func aBinaryBoundOverAnotherProgramsPathDoesNotReachItsItems() throws {
        // The first program: an unregistered copy of clavis, which keeps a secret in its private group.
        let first = apps.folder + "/first/clavis"
        try FileManager.default.createDirectory(atPath: apps.folder + "/first", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: ClavisBinary.path, toPath: first)
        let add = ["add-generic-password", "-a", "me", "-s", "private", "-w", "first-programs-secret"]
        #expect(try apps.asUser(first, add).status == 0)
        let find = ["find-generic-password", "-a", "me", "-s", "private", "-w"]
        #expect(try apps.asUser(first, find).standardOutput == "first-programs-secret\n")
        // Another binary (python, which the user drives) bound over the first's path in the user's own namespaces,
        // asks for the items of the program at that path.
        let script = apps.folder + "/ask.py"
        try (RegisteredAppsFixture.askForTheSecret + "\n" + #"""
            path, body = sys.argv[1], bytes.fromhex(sys.argv[2])
            SECRET = b"first-programs-secret"
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            print(ask(s, body), flush=True)
            """#).write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let python = try FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/python3")
        let request = RegisteredAppsFixture.findRequest(service: "private", groups: nil)
        let command = "mount --bind /usr/bin/\(python) \(first) && exec \(first) \(script) \(apps.daemon.socket) \(request)"
        let borrowed = try apps.asUser("/usr/bin/unshare", ["-Urm", "/bin/sh", "-c", command])
        #expect(borrowed.standardOutput == "answer 0 nothing\n", "\(borrowed.standardError)")
        let refusal = try apps.accessLog().last { $0.contains("\"executable\":\"\(first)\"") }
        #expect(refusal?.contains("names another file in the daemon's view") == true, "\(String(describing: refusal))")
    }
}
