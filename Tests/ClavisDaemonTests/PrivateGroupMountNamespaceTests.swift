import ClavisTestSupport
import Foundation
import Testing

/// An unregistered program's private group is named by its path: only the file that path names for everyone reaches
/// it, not another binary bound over the path in a mount namespace of the caller's.
@Suite(.serialized) final class PrivateGroupMountNamespaceTests {
    let apps: RegisteredAppsFixture

    init() throws {
        apps = try RegisteredAppsFixture()
    }

    @Test func aBinaryBoundOverAnotherProgramsPathDoesNotReachItsItems() throws {
        try bindingOverReachesNothing(in: apps.folder + "/first")
    }

    /// The same where the daemon cannot look at the path (the user's own folder, mode 0700): the first program, in
    /// the system's mount namespace, is served by its path; the binary bound over it in another one is not.
    @Test func aBinaryBoundOverAPathTheDaemonCannotSeeDoesNotReachItsItems() throws {
        let hidden = apps.folder + "/hidden"
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: false)
        chown(hidden, apps.user.uid, apps.user.gid)
        chmod(hidden, 0o700)
        try bindingOverReachesNothing(in: hidden)
    }

    /// An unregistered copy of clavis in `folder` keeps a secret in its private group; python, bound over its path
    /// in the user's own namespaces, asks for it.
    private func bindingOverReachesNothing(in folder: String) throws {
        let first = folder + "/clavis"
        if !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        }
        try FileManager.default.copyItem(atPath: ClavisBinary.path, toPath: first)
        chown(first, 0, 0)
        let add = ["add-generic-password", "-a", "me", "-s", "private", "-w", "first-programs-secret"]
        let added = try apps.asUser(first, add)
        #expect(added.status == 0, "\(added.standardError)")
        let find = ["find-generic-password", "-a", "me", "-s", "private", "-w"]
        #expect(try apps.asUser(first, find).standardOutput == "first-programs-secret\n")
        // Another binary (python, which the user drives) bound over the first's path in the user's own namespaces,
        // asks for the items of the program at that path.
        let script = apps.folder + "/ask.py"
        try
            (RegisteredAppsFixture.askForTheSecret + "\n" + #"""
                path, body = sys.argv[1], bytes.fromhex(sys.argv[2])
                SECRET = b"first-programs-secret"
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                print(ask(s, body), flush=True)
                """#).write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let python = try FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/python3")
        let request = RegisteredAppsFixture.findRequest(service: "private", groups: nil)
        let command =
            "mount --bind /usr/bin/\(python) \(first) && exec \(first) \(script) \(apps.daemon.socket) \(request)"
        let borrowed = try apps.asUser("/usr/bin/unshare", ["-Urm", "/bin/sh", "-c", command])
        #expect(borrowed.standardOutput == "answer 0 nothing\n", "\(borrowed.standardError)")
        let refusal = try apps.accessLog().last { $0.contains("\"executable\":\"\(first)\"") }
        #expect(
            refusal?.contains("does not name the file it runs for everyone") == true, "\(String(describing: refusal))")
    }
}
