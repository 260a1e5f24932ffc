import ClavisTestSupport
import Foundation
import Testing

/// What `clavis` says when something fails: what failed, where, and what to do, never a bare status text.
@Suite(.preparedKeychain) struct CommandMessageTests {
    private func freshHome() throws -> String { try makeTemporaryFolder("clavis-messages") + "/home" }

    @Test func aPasscodeBoundAddWithoutAPasscodeSaysHowToSetOne() throws {
        let home = try freshHome()
        for extra in [["--accessible", "akpu"], ["--access-control", "devicePasscode"]] {
            let added = try ClavisBinary.run(["add-generic-password", "-s", "s", "-w", "pw"] + extra, home: home)
            #expect(added.status == 53)  // errSecNotAvailable's low byte
            #expect(added.standardError.contains("no passcode"), "\(added.standardError)")
            #expect(added.standardError.contains("clavis set-keychain-password"))
        }
    }

    @Test func aMissingPassphraseOnAPipeSaysWhatInputIsNeeded() throws {
        let home = try freshHome()
        let set = try ClavisBinary.run(["set-keychain-password"], home: home, input: "")
        #expect(set.status != 0)
        #expect(
            set.standardError.contains("-p") && set.standardError.contains("standard input"), "\(set.standardError)")
        #expect(!set.standardError.contains("not valid"))
        let backup = try makeTemporaryFolder("clavis-messages") + "/backup"
        let export = try ClavisBinary.run(["export", "-o", backup], home: home, input: "")
        #expect(export.status != 0)
        #expect(export.standardError.contains("-P") && export.standardError.contains("standard input"))
        #expect(!export.standardError.contains("canceled"), "\(export.standardError)")
    }

    @Test func aFileThatCannotBeReadIsNamedWithTheSystemsReason() throws {
        let home = try freshHome()
        let missing = "/nonexistent-\(UUID().uuidString)/backup"
        let imported = try ClavisBinary.run(["import", missing, "-P", "x"], home: home)
        #expect(imported.status != 0)
        #expect(imported.standardError.contains(missing) && imported.standardError.contains("No such file"))
        let unwritable = try ClavisBinary.run(["export", "-o", missing, "-P", "x"], home: home)
        #expect(unwritable.standardError.contains("/nonexistent-") && unwritable.standardError.contains("No such file"))
    }

    @Test func aKeychainFolderThatCannotBeCreatedIsNamedWithTheReason() throws {
        let parent = try makeTemporaryFolder("clavis-messages")
        try "a file".write(toFile: parent + "/file", atomically: false, encoding: .utf8)
        let found = try ClavisBinary.run(["find-generic-password", "-s", "s"], home: parent + "/file/home")
        #expect(found.status == 220)  // errSecIO's low byte
        #expect(found.standardError.contains(parent + "/file") && found.standardError.contains("Not a directory"))
    }

    @Test func duringALockoutClavisSaysForHowLongInsteadOfAskingForThePasscode() throws {
        let folder = try makeTemporaryFolder("clavis-messages")
        let home = folder + "/home"
        #expect(try ClavisBinary.run(["add-generic-password", "-s", "svc", "-w", "kept"], home: home).status == 0)
        #expect(try ClavisBinary.run(["set-keychain-password", "-p", "7391"], home: home).status == 0)
        for _ in 0..<5 {
            #expect(try ClavisBinary.run(["unlock-keychain", "-p", "0000"], home: home).status == 51)
        }
        let asked = folder + "/asked"
        let askpass = try ClavisBinary.writeAskpass(in: folder, "#!/bin/sh\necho asked >> \(asked)\necho 7391\n")
        let found = try ClavisBinary.run(
            ["find-generic-password", "-s", "svc", "-w"], home: home, environment: ["CLAVIS_ASKPASS": askpass])
        #expect(found.status == 51, "\(found.standardError)")
        #expect(found.standardError.contains("locked out") && found.standardError.contains("try again in"))
        #expect(!FileManager.default.fileExists(atPath: asked), "nobody is asked while attempts are refused")
    }

    @Test func aDeleteOfEveryMatchThatFailsMidwaySaysWhatItAlreadyDeleted() throws {
        let home = try freshHome()
        #expect(try ClavisBinary.run(["set-keychain-password", "-p", "1234"], home: home).status == 0)
        for (account, extra) in [("first", []), ("second", ["--access-control", "devicePasscode"]), ("third", [])] {
            let added = try ClavisBinary.run(
                ["add-generic-password", "-a", account, "-s", "svc", "-w", "x", "--accessible", "dk"] + extra,
                home: home)
            #expect(added.status == 0, "\(added.standardError)")
        }
        // The second needs the passcode, and nobody can be asked: the delete stops there.
        let deleted = try ClavisBinary.run(["delete-generic-password", "-s", "svc", "--all"], home: home)
        #expect(deleted.status == 36, "\(deleted.standardError)")
        #expect(deleted.standardOutput.contains("\"acct\"<blob>=\"first\""), "\(deleted.standardOutput)")
        #expect(deleted.standardOutput.contains("password has been deleted."))
        #expect(!deleted.standardOutput.contains("second") && !deleted.standardOutput.contains("third"))
        let json = try ClavisBinary.run(["--json", "delete-generic-password", "-s", "svc", "--all"], home: home)
        #expect(json.status == 36)
        #expect(json.standardOutput.contains("\"deleted\""), "\(json.standardOutput)")
    }
}
