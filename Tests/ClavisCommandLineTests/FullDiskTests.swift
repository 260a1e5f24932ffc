import ClavisTestSupport
import Foundation
import Testing

/// A keychain on a full file system (a 2 MiB tmpfs, filled up): reads keep working, writes say the disk is full.
@Suite(.serialized, .preparedKeychain) final class FullDiskTests {
    let mountPoint: String
    let home: String

    init() throws {
        mountPoint = try makeTemporaryFolder("clavis-full-disk")
        let mounted = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "mount: \(mounted.standardError)")
        home = mountPoint + "/home"
    }

    deinit {
        _ = try? runProcess("/bin/umount", [mountPoint])
        rmdir(mountPoint)
    }

    /// Writes zeros to a file until the file system has no room left.
    private func fillUp() throws {
        let filler = try runProcess("/bin/dd", ["if=/dev/zero", "of=\(mountPoint)/filler", "bs=4096"])
        #expect(filler.standardError.contains("No space left"), "\(filler.standardError)")
    }

    @Test func readsKeepWorkingAndAddsSayTheDiskIsFullNamingTheFolder() throws {
        for index in 0..<5 {
            let added = try ClavisBinary.run(
                ["add-generic-password", "-a", "a\(index)", "-s", "svc", "-w", "secret-\(index)"], home: home)
            #expect(added.status == 0, "\(added.standardError)")
        }
        try fillUp()
        for index in 0..<5 {
            let found = try ClavisBinary.run(
                ["find-generic-password", "-a", "a\(index)", "-s", "svc", "-w"], home: home)
            #expect(found.status == 0, "\(found.standardError)")
            #expect(found.standardOutput == "secret-\(index)\n")
        }
        let dump = try ClavisBinary.run(["dump-keychain"], home: home)
        #expect(dump.status == 0 && dump.standardOutput.components(separatedBy: "class:").count == 6)
        let added = try ClavisBinary.run(["add-generic-password", "-a", "new", "-s", "svc", "-w", "x"], home: home)
        #expect(added.status == 222, "errSecDiskFull's low byte: \(added.standardError)")
        #expect(added.standardError.contains("The disk is full.") && added.standardError.contains(home))
        let deleted = try ClavisBinary.run(["delete-generic-password", "-a", "a0"], home: home)
        #expect(deleted.status == 222, "\(deleted.standardError)")
    }
}
