import ClavisTestSupport
import Foundation
import Testing

/// Symbolic links and foreign files planted in a keychain folder, and `export -o` onto existing files: `clavis` never
/// follows a link out of its folder, never changes another user's file, and never overwrites a file unasked.
@Suite(.serialized, .preparedKeychain) final class SymbolicLinkTests {
    let victim: SecondUser
    let folder: String
    let home: String
    /// A file of the second user's that planted links point at.
    let target: String

    init() throws {
        victim = try SecondUser()
        folder = try makeTemporaryFolder("clavis-symlinks")
        chmod(folder, 0o755)
        home = folder + "/home"
        target = folder + "/victims-file"
        try victim.ownedFile(target, contents: "the victim's own text\n", mode: 0o644)
    }

    deinit { victim.remove() }

    private func clavis(_ arguments: [String]) throws -> ProcessOutput {
        try ClavisBinary.run(arguments, home: home)
    }

    private func addItem() throws {
        let added = try clavis(["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw"])
        #expect(added.status == 0, "\(added.standardError)")
    }

    @Test func aPlantedDatabaseLinkIsRefusedAndItsTargetLeftAlone() throws {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        chmod(home, 0o700)
        #expect(symlink(target, home + "/keychain.db") == 0)
        let before = fileState(target)
        let added = try clavis(["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw"])
        #expect(added.status != 0)
        #expect(added.standardError.contains("keychain.db") && added.standardError.contains("symbolic link"))
        #expect(fileState(target) == before)
    }

    @Test func aPlantedDeviceKeyLinkNeverChangesItsTargetsMode() throws {
        try addItem()
        #expect(unlink(home + "/device.key") == 0 && symlink(target, home + "/device.key") == 0)
        let before = fileState(target)
        let found = try clavis(["find-generic-password", "-a", "me", "-s", "svc"])
        #expect(found.status != 0)
        #expect(found.standardError.contains("device.key") && found.standardError.contains("symbolic link"))
        #expect(fileState(target) == before)
    }

    @Test func aKeychainFolderThatIsALinkIsRefused() throws {
        let real = folder + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
        #expect(symlink(real, home) == 0)
        let added = try clavis(["add-generic-password", "-a", "me", "-s", "svc", "-w", "pw"])
        #expect(added.status != 0)
        #expect(added.standardError.contains("symbolic link"), "\(added.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
    }

    @Test func aDatabaseOwnedByAnotherUserIsRefused() throws {
        try addItem()
        #expect(chown(home + "/keychain.db", victim.uid, victim.gid) == 0)
        let found = try clavis(["find-generic-password", "-a", "me", "-s", "svc"])
        #expect(found.status != 0)
        #expect(found.standardError.contains("keychain.db") && found.standardError.contains("another user"))
    }

    @Test func exportRefusesAnExistingFileUnlessForced() throws {
        try addItem()
        let backup = folder + "/backup"
        try "keep me\n".write(toFile: backup, atomically: false, encoding: .utf8)
        let refused = try clavis(["export", "-o", backup, "-P", "phrase"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("exists") && refused.standardError.contains("--force"))
        #expect(fileState(backup).contents == "keep me\n")
        let forced = try clavis(["export", "-o", backup, "-P", "phrase", "--force"])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(fileState(backup).contents != "keep me\n" && fileState(backup).mode == 0o600)
    }

    @Test func exportReplacesALinkInsteadOfWritingThroughIt() throws {
        try addItem()
        let backup = folder + "/backup-link"
        #expect(symlink(target, backup) == 0)
        let before = fileState(target)
        #expect(try clavis(["export", "-o", backup, "-P", "phrase"]).status != 0)
        let forced = try clavis(["export", "-o", backup, "-P", "phrase", "--force"])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(fileState(target) == before, "the link's target is never written")
        var status = stat()
        #expect(lstat(backup, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG)
    }

    @Test func exportAlwaysRefusesTheKeychainsOwnFiles() throws {
        try addItem()
        for name in ["keychain.db", "device.key"] {
            let refused = try clavis(["export", "-o", home + "/" + name, "-P", "phrase", "--force"])
            #expect(refused.status != 0)
            #expect(refused.standardError.contains("keychain's own"), "\(refused.standardError)")
        }
        let viaLink = folder + "/db-link"
        #expect(symlink(home + "/keychain.db", viaLink) == 0)
        #expect(try clavis(["export", "-o", viaLink, "-P", "phrase", "--force"]).status != 0)
        let found = try clavis(["find-generic-password", "-a", "me", "-s", "svc", "-w"])
        #expect(found.standardOutput == "pw\n", "the keychain still works")
    }
}
