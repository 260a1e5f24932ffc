import ClavisTestSupport
import Foundation
import Testing

/// The conventions a user of macOS `security` and of command lines in general expects from `clavis`.
@Suite(.preparedKeychain) struct CommandLineConventionTests {
    private func freshHome() throws -> String { try makeTemporaryFolder("clavis-conventions") + "/home" }

    static let verbs = [
        "add-generic-password", "find-generic-password", "delete-generic-password", "add-internet-password",
        "find-internet-password", "delete-internet-password", "dump-keychain", "unlock-keychain", "lock-keychain",
        "set-keychain-password", "export", "import", "error",
    ]

    @Test func helpAndVersionAtTheTop() throws {
        let home = try freshHome()
        for flag in ["--help", "-h"] {
            let help = try ClavisBinary.run([flag], home: home)
            #expect(help.status == 0)
            #expect(help.standardOutput.contains("Usage: clavis") && help.standardOutput.contains("--version"))
        }
        let version = try ClavisBinary.run(["--version"], home: home)
        #expect(version.status == 0)
        #expect(version.standardOutput.hasPrefix("clavis "), "\(version.standardOutput)")
    }

    @Test(arguments: verbs)
    func everyVerbTakesHelp(verb: String) throws {
        let help = try ClavisBinary.run([verb, "--help"], home: try freshHome())
        #expect(help.status == 0, "\(help.standardError)")
        #expect(help.standardOutput.hasPrefix("Usage: clavis \(verb)"))
    }

    @Test func aWrongFlagGivesAShortUsageLine() throws {
        let wrong = try ClavisBinary.run(["find-generic-password", "-Z"], home: try freshHome())
        #expect(wrong.status == 2)
        #expect(wrong.standardError.contains("unknown option -Z"))
        #expect(wrong.standardError.contains("Usage: clavis find-generic-password"))
        #expect(wrong.standardError.split(separator: "\n").count <= 3, "\(wrong.standardError)")
        let verb = try ClavisBinary.run(["no-such-verb"], home: try freshHome())
        #expect(verb.status == 2 && verb.standardError.split(separator: "\n").count <= 3, "\(verb.standardError)")
    }

    @Test func helpWarnsThatASecretOnTheCommandLineIsVisibleInPs() throws {
        let home = try freshHome()
        for verb in ["add-generic-password", "add-internet-password"] {
            let help = try ClavisBinary.run([verb, "--help"], home: home)
            #expect(help.standardOutput.contains("visible to other users in ps"))
        }
        #expect(try ClavisBinary.run(["--help"], home: home).standardOutput.contains("ps"))
    }

    @Test func aDeleteThatNamesNothingIsRefusedUnlessAll() throws {
        let home = try freshHome()
        for account in ["one", "two"] {
            #expect(
                try ClavisBinary.run(["add-generic-password", "-a", account, "-s", "s", "-w", "x"], home: home).status
                    == 0)
        }
        let refused = try ClavisBinary.run(["delete-generic-password"], home: home)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("--all"))
        let dump = try ClavisBinary.run(["dump-keychain"], home: home)
        #expect(dump.standardOutput.components(separatedBy: "class:").count == 3, "both items are still there")
        let all = try ClavisBinary.run(["delete-generic-password", "--all"], home: home)
        #expect(all.status == 0, "\(all.standardError)")
        #expect(try ClavisBinary.run(["find-generic-password", "-s", "s"], home: home).status == 44)
    }

    @Test func creatorAndTypePrintAsFourCharacterCodes() throws {
        let home = try freshHome()
        let added = try ClavisBinary.run(
            ["add-generic-password", "-a", "me", "-s", "s", "-w", "x", "-c", "aapl", "-C", "note"], home: home)
        #expect(added.status == 0, "\(added.standardError)")
        let found = try ClavisBinary.run(["find-generic-password", "-a", "me"], home: home)
        #expect(found.standardOutput.contains("\"crtr\"<uint32>=\"aapl\""), "\(found.standardOutput)")
        #expect(found.standardOutput.contains("\"type\"<uint32>=\"note\""))
    }

    @Test func aRelativeKeychainHomeIsTakenFromTheCurrentFolder() throws {
        let folder = try makeTemporaryFolder("clavis-relative")
        let name = "relative-\(UUID().uuidString)"
        let environment = ClavisBinary.environment(home: name + "/home")
        let added = try runProcess(
            ClavisBinary.path, ["add-generic-password", "-s", "svc", "-w", "kept"], environment: environment,
            currentDirectory: folder)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/\(name)/home/keychain.db"))
        #expect(!FileManager.default.fileExists(atPath: "/" + name), "nothing is created at the root")
        let found = try runProcess(
            ClavisBinary.path, ["find-generic-password", "-s", "svc", "-w"], environment: environment,
            currentDirectory: folder)
        #expect(found.standardOutput == "kept\n")
        try? FileManager.default.removeItem(atPath: "/" + name)
    }
}
