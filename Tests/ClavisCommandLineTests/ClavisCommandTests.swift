import ClavisTestSupport
import Foundation
import Security
import Testing

/// The built `clavis` binary, run as a user would run it.
@Suite(.preparedKeychain) struct ClavisCommandTests {
    /// Runs `clavis` on the keychain in `home` (no entitlements, askpass program or sensor unless named).
    private func clavis(_ arguments: [String], home: String, input: String? = nil, environment: [String: String] = [:])
        throws -> ProcessOutput
    {
        try ClavisBinary.run(arguments, home: home, input: input, environment: environment)
    }

    private func freshHome() throws -> String { try makeTemporaryFolder("clavis-cli") + "/home" }

    @Test func passcodeAndSecretTypedAtATerminalAreNeverEchoed() throws {
        let home = try freshHome()
        let environment = [
            "CLAVIS_HOME": home, "CLAVIS_ENTITLEMENTS": "", "CLAVIS_ASKPASS": "", "CLAVIS_BIOMETRY_SCRIPT": "",
        ]
        let set = try clavis(["set-keychain-password", "-p", "7391"], home: home)
        #expect(set.status == 0, "\(set.standardError)")
        let added = try runOnTerminal(
            [ClavisBinary.path, "add-generic-password", "-a", "me", "-s", "tty", "-w"], environment: environment,
            answers: [
                ("password to unlock keychain:", "7391"), ("password data for new item:", "typed-secret-5521"),
                ("retype password data for new item:", "typed-secret-5521"),
            ])
        #expect(added.status == 0, "\(added.transcript)")
        #expect(
            !added.transcript.contains("7391") && !added.transcript.contains("typed-secret-5521"), "\(added.transcript)"
        )
        let found = try runOnTerminal(
            [ClavisBinary.path, "find-generic-password", "-a", "me", "-s", "tty", "-w"], environment: environment,
            answers: [("password to unlock keychain:", "7391")])
        #expect(found.status == 0, "\(found.transcript)")
        #expect(found.transcript.contains("typed-secret-5521"), "the secret asked for with -w is printed")
        #expect(!found.transcript.contains("7391"), "\(found.transcript)")
        let wrong = try runOnTerminal(
            [ClavisBinary.path, "find-generic-password", "-a", "me", "-s", "tty", "-w"], environment: environment,
            answers: Array(repeating: ("password to unlock keychain:", "0000"), count: 3))
        #expect(wrong.status == 51, "three wrong passcodes: SecKeychainUnlock fails: \(wrong.transcript)")
        #expect(!wrong.transcript.contains("typed-secret-5521"))
    }

    @Test func exportThenImportOnAnotherKeychainRestoresWhatMayTravel() throws {
        let home = try freshHome()
        let otherHome = try freshHome()
        let backup = try makeTemporaryFolder("clavis-backup") + "/backup.clavis"
        #expect(try clavis(["add-generic-password", "-a", "a", "-s", "s", "-w", "travels"], home: home).status == 0)
        let local = ["add-generic-password", "-a", "b", "-s", "s", "-w", "stays", "--accessible", "aku"]
        #expect(try clavis(local, home: home).status == 0)
        let exported = try clavis(["--json", "export", "-o", backup], home: home, input: "pass phrase\n")
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(
            exported.standardOutput.contains("\"exported\" : 1") || exported.standardOutput.contains("\"exported\":1"))
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        #expect(try clavis(["import", backup, "-P", "wrong"], home: otherHome).status == 51)
        let imported = try clavis(["import", backup], home: otherHome, input: "pass phrase\n")
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput.contains("restored 1 items"))
        let found = try clavis(["find-generic-password", "-a", "a", "-s", "s", "-w"], home: otherHome)
        #expect(found.standardOutput == "travels\n")
        #expect(try clavis(["find-generic-password", "-a", "b", "-s", "s"], home: otherHome).status == 44)
    }

    @Test func eachRunClosesTheKeychainSoNoWriteAheadLogIsLeftBehind() throws {
        let home = try freshHome()
        for index in 0..<20 {
            let added = try clavis(["add-generic-password", "-a", "a\(index)", "-s", "s", "-w", "x"], home: home)
            #expect(added.status == 0, "\(added.standardError)")
        }
        let log = (try? FileManager.default.attributesOfItem(atPath: home + "/keychain.db-wal")[.size] as? Int) ?? 0
        #expect(log == 0, "a process that exits must fold its log back, or the next one replays it all")
    }

    @Test func clavisWaitingForASecretCannotDumpCore() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ClavisBinary.path)
        process.arguments = ["add-generic-password", "-a", "a", "-s", "s", "-w"]
        var environment = ProcessInfo.processInfo.environment
        environment["CLAVIS_HOME"] = try freshHome()
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        // While it waits for the secret on stdin, its limits are readable; poll until hardening has run.
        var coreLimit = ""
        for _ in 0..<1000 {  // up to 10 s: a loaded machine starts Foundation slowly
            let limits =
                (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)) ?? ""
            coreLimit =
                limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? ""
            if coreLimit.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"] {
                break
            }
            usleep(10_000)
        }
        let fields = coreLimit.split(separator: " ", omittingEmptySubsequences: true)
        #expect(fields.dropFirst(4).prefix(2) == ["0", "0"], "\(coreLimit)")
    }

    @Test func accessControlFlagAddsAProtectedItemShownWithItsProtectionAndOpenedThroughAskpass() throws {
        let folder = try makeTemporaryFolder("clavis-cli-acl")
        let home = folder + "/home"
        let askpass = try writeAskpass(in: folder, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '\(folder)/calls'\necho 1234\n")
        let script = folder + "/biometry.json"
        try Data(#"{"enrolled": ["right-index"], "outcomes": ["no-match", "match"]}"#.utf8)
            .write(to: URL(fileURLWithPath: script))
        let environment = ["CLAVIS_ASKPASS": askpass, "CLAVIS_BIOMETRY_SCRIPT": script]
        func run(_ arguments: [String]) throws -> ProcessOutput {
            try clavis(arguments, home: home, environment: environment)
        }
        let add = ["add-generic-password", "-a", "acl", "-s", "svc", "-w", "pw", "--accessible", "aku"]
        // devicePasscode without a keychain passcode: errSecNotAvailable (-25291), whose low byte is 53.
        #expect(try run(add + ["--access-control", "devicePasscode"]).status == 53)
        #expect(try run(add + ["--access-control", "biometryAny,devicePasscode"]).status == 2)
        #expect(try run(["set-keychain-password", "-p", "1234"]).status == 0)
        let added = try run(add + ["--access-control", "biometryAny,or,devicePasscode"])
        #expect(added.status == 0, "\(added.standardError)")
        let shown = try run(["find-generic-password", "-a", "acl", "-s", "svc"])
        #expect(shown.status == 0)
        #expect(shown.standardOutput.contains("protection: WhenUnlockedThisDeviceOnly (aku)"))
        #expect(shown.standardOutput.contains("access control: biometryAny,or,devicePasscode"))
        // The scan fails, the passcode (from askpass) opens it; then a match does.
        for _ in 1...2 {
            let secret = try run(["find-generic-password", "-a", "acl", "-s", "svc", "-w"])
            #expect(secret.status == 0, "\(secret.standardError)")
            #expect(secret.standardOutput == "pw\n")
        }
        let dump = try run(["--json", "dump-keychain"])
        let items = try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [[String: Any]]
        #expect(items?.first?["accessControl"] as? [String] == ["biometryAny", "or", "devicePasscode"])
        #expect(items?.first?["protection"] as? String == "aku")
        let calls = try String(contentsOfFile: folder + "/calls", encoding: .utf8)
        #expect(!calls.isEmpty && !calls.contains("1234"))
    }

    @Test func applicationPasswordIsAskedForThroughAskpassWhenAddingAndReading() throws {
        let folder = try makeTemporaryFolder("clavis-cli-app-password")
        let home = folder + "/home"
        let askpass = try writeAskpass(
            in: folder, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '\(folder)/calls'\nhead -n 1 '\(folder)/answer'\n")
        func run(_ arguments: [String], answer: String) throws -> ProcessOutput {
            try (answer + "\n").write(toFile: folder + "/answer", atomically: true, encoding: .utf8)
            return try clavis(arguments, home: home, environment: ["CLAVIS_ASKPASS": askpass])
        }
        let added = try run(
            ["add-generic-password", "-a", "app", "-s", "svc", "-w", "pw", "--access-control", "applicationPassword"],
            answer: "open sesame")
        #expect(added.status == 0, "\(added.standardError)")
        let read = try run(["find-generic-password", "-a", "app", "-s", "svc", "-w"], answer: "open sesame")
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardOutput == "pw\n")
        // errSecAuthFailed (-25293), whose low byte is 51.
        let wrong = try run(["find-generic-password", "-a", "app", "-s", "svc", "-w"], answer: "guess")
        #expect(wrong.status == 51)
        #expect(!wrong.standardError.contains("guess"))
        let calls = try String(contentsOfFile: folder + "/calls", encoding: .utf8)
        // Chosen twice (the password and its confirmation), then asked once per read.
        #expect(calls.split(separator: "\n").count == 4)
        #expect(calls.contains("again"))
        #expect(calls.contains("application password") && !calls.contains("open sesame"))
    }

    @Test func binaryIsBuiltNextToTheTests() {
        #expect(
            FileManager.default.isExecutableFile(atPath: ClavisBinary.path), "run `swift build` before `swift test`")
    }

    @Test func addFindUpdateDeleteAndNotFound() throws {
        let home = try freshHome()
        let add = try clavis(
            ["add-generic-password", "-a", "alice", "-s", "mail", "-w", "s3cret", "-l", "Mail"], home: home)
        #expect(add.status == 0, "\(add.standardError)")

        let find = try clavis(["find-generic-password", "-a", "alice", "-s", "mail", "-w"], home: home)
        #expect(find.status == 0)
        #expect(find.standardOutput == "s3cret\n")

        let duplicate = try clavis(["add-generic-password", "-a", "alice", "-s", "mail", "-w", "other"], home: home)
        #expect(duplicate.status == 45)
        #expect(duplicate.standardError.contains("The specified item already exists in the keychain."))

        let update = try clavis(["add-generic-password", "-a", "alice", "-s", "mail", "-w", "n3w", "-U"], home: home)
        #expect(update.status == 0, "\(update.standardError)")
        #expect(try clavis(["find-generic-password", "-s", "mail", "-w"], home: home).standardOutput == "n3w\n")

        let delete = try clavis(["delete-generic-password", "-a", "alice", "-s", "mail"], home: home)
        #expect(delete.status == 0)
        #expect(delete.standardOutput.contains("\"acct\"<blob>=\"alice\""))
        #expect(delete.standardOutput.hasSuffix("password has been deleted.\n"))
        #expect(!delete.standardOutput.contains("n3w"))

        let missing = try clavis(["find-generic-password", "-a", "alice", "-s", "mail"], home: home)
        #expect(missing.status == 44)
        #expect(missing.standardError.contains("The specified item could not be found in the keychain."))
        #expect(try clavis(["delete-generic-password", "-a", "alice", "-s", "mail"], home: home).status == 44)
    }

    @Test func updateExistingChangesOnlyTheItemTheAddCollidedWith() throws {
        let home = try freshHome()
        for (account, secret) in [("", "blank"), ("alice", "alices"), ("bob", "bobs")] {
            var arguments = ["add-generic-password", "-s", "mail", "-w", secret]
            if !account.isEmpty { arguments += ["-a", account] }
            #expect(try clavis(arguments, home: home).status == 0)
        }
        let update = try clavis(["add-generic-password", "-s", "mail", "-w", "X", "-U"], home: home)
        #expect(update.status == 0, "\(update.standardError)")
        for (account, secret) in [("", "X"), ("alice", "alices"), ("bob", "bobs")] {
            let found = try clavis(["find-generic-password", "-a", account, "-s", "mail", "-w"], home: home)
            #expect(found.standardOutput == secret + "\n", "account '\(account)'")
        }
        let site = ["add-internet-password", "-a", "bob", "-s", "example.com"]
        #expect(try clavis(site + ["-r", "htps", "-P", "443", "-w", "tls"], home: home).status == 0)
        #expect(try clavis(site + ["-w", "plain"], home: home).status == 0)
        #expect(try clavis(site + ["-w", "plain2", "-U"], home: home).status == 0)
        let tls = try clavis(
            ["find-internet-password", "-a", "bob", "-s", "example.com", "-P", "443", "-w"], home: home)
        #expect(tls.standardOutput == "tls\n", "the https item keeps its secret")
    }

    @Test func findShowsAttributesButNotTheSecretUnlessAsked() throws {
        let home = try freshHome()
        _ = try clavis(["add-generic-password", "-a", "bob", "-s", "vpn", "-w", "topsecret", "-j", "note"], home: home)
        let plain = try clavis(["find-generic-password", "-a", "bob"], home: home)
        #expect(plain.status == 0)
        #expect(plain.standardOutput.contains("class: \"genp\""))
        #expect(plain.standardOutput.contains("\"svce\"<blob>=\"vpn\""))
        #expect(plain.standardOutput.contains("\"icmt\"<blob>=\"note\""))
        #expect(!(plain.standardOutput + plain.standardError).contains("topsecret"))
        let withPassword = try clavis(["find-generic-password", "-a", "bob", "-g"], home: home)
        #expect(withPassword.standardError.contains("password: \"topsecret\""))
    }

    @Test func passwordGivenLastIsReadFromStandardInput() throws {
        let home = try freshHome()
        let add = try clavis(
            ["add-generic-password", "-a", "carol", "-s", "api", "-w"], home: home, input: "from-stdin\n")
        #expect(add.status == 0, "\(add.standardError)")
        #expect(try clavis(["find-generic-password", "-s", "api", "-w"], home: home).standardOutput == "from-stdin\n")
    }

    @Test func internetPasswordVerbs() throws {
        let home = try freshHome()
        let add = try clavis(
            [
                "add-internet-password", "-a", "dave", "-s", "example.com", "-r", "htps", "-P", "443", "-p", "/login",
                "-t", "form", "-w", "pw",
            ], home: home)
        #expect(add.status == 0, "\(add.standardError)")
        let find = try clavis(["find-internet-password", "-s", "example.com", "-P", "443", "-w"], home: home)
        #expect(find.standardOutput == "pw\n")
        #expect(try clavis(["find-internet-password", "-s", "example.com", "-P", "80"], home: home).status == 44)
        #expect(try clavis(["delete-internet-password", "-s", "example.com"], home: home).status == 0)
        #expect(try clavis(["find-internet-password", "-s", "example.com"], home: home).status == 44)
    }

    @Test func errorPrintsApplesMessage() throws {
        let output = try clavis(["error", "-25300"], home: try freshHome())
        #expect(output.status == 0)
        #expect(
            output.standardOutput == "Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain.\n"
        )
    }

    @Test func dumpKeychainWithDShowsSecretsAndAsksWhereAnItemNeedsIt() throws {
        let folder = try makeTemporaryFolder("clavis-cli-dump")
        let home = folder + "/home"
        let askpass = try writeAskpass(
            in: folder, "#!/bin/sh\nhead -n 1 '\(folder)/answer' | grep -v CANCEL || exit 1\n")
        func run(_ arguments: [String], answer: String = "app pw") throws -> ProcessOutput {
            try (answer + "\n").write(toFile: folder + "/answer", atomically: true, encoding: .utf8)
            return try clavis(arguments, home: home, environment: ["CLAVIS_ASKPASS": askpass])
        }
        _ = try run(["add-generic-password", "-a", "erin", "-s", "one", "-w", "secret-one"])
        _ = try run(["add-internet-password", "-a", "erin", "-s", "two.example", "-w", "line\nbreak"])
        let protected = try run(
            [
                "add-generic-password", "-a", "erin", "-s", "three", "-w", "secret-three",
                "--access-control", "applicationPassword",
            ])
        #expect(protected.status == 0, "\(protected.standardError)")

        let dump = try run(["dump-keychain", "-d"])
        #expect(dump.status == 0, "\(dump.standardError)")
        #expect(dump.standardOutput.contains("data:\n\"secret-one\""))
        #expect(dump.standardOutput.contains("data:\n0x6C696E650A627265616B  \"line\\012break\""))
        #expect(dump.standardOutput.contains("data:\n\"secret-three\""))

        // A canceled prompt leaves that secret out, names the item on stderr and sets the exit status (-128).
        let canceled = try run(["--json", "dump-keychain", "-d"], answer: "CANCEL")
        #expect(canceled.status == 128)  // the low byte of errSecUserCanceled (-128)
        #expect(canceled.standardError.contains("\"erin\" at \"three\""))
        let items = try JSONSerialization.jsonObject(with: Data(canceled.standardOutput.utf8)) as? [[String: Any]]
        #expect(Set(items?.compactMap { $0["password"] as? String } ?? []) == ["secret-one", "line\nbreak"])
        #expect(items?.count == 3)
    }

    @Test func dumpKeychainListsItemsWithoutSecrets() throws {
        let home = try freshHome()
        _ = try clavis(["add-generic-password", "-a", "erin", "-s", "one", "-w", "secret-one"], home: home)
        _ = try clavis(["add-internet-password", "-a", "erin", "-s", "two.example", "-w", "secret-two"], home: home)
        let dump = try clavis(["dump-keychain"], home: home)
        #expect(dump.status == 0)
        #expect(dump.standardOutput.contains("\"svce\"<blob>=\"one\""))
        #expect(dump.standardOutput.contains("\"srvr\"<blob>=\"two.example\""))
        #expect(!dump.standardOutput.contains("secret-"))
        // Without entitlements the process's group is its executable's name.
        #expect(dump.standardOutput.contains("\"agrp\"<blob>=\"clavis\""))
    }

    @Test func jsonOutputForScripts() throws {
        let home = try freshHome()
        _ = try clavis(["add-generic-password", "-a", "frank", "-s", "db", "-w", "pw"], home: home)
        let find = try clavis(["--json", "find-generic-password", "-a", "frank", "-w"], home: home)
        let object = try JSONSerialization.jsonObject(with: Data(find.standardOutput.utf8)) as? [String: Any]
        #expect(object?["password"] as? String == "pw")
        #expect((object?["attributes"] as? [String: Any])?["svce"] as? String == "db")
        let quiet = try clavis(["find-generic-password", "-a", "frank", "--json"], home: home)
        let withoutSecret = try JSONSerialization.jsonObject(with: Data(quiet.standardOutput.utf8)) as? [String: Any]
        #expect(withoutSecret?["password"] == nil)
        let missing = try clavis(["--json", "find-generic-password", "-a", "nobody"], home: home)
        #expect(missing.status == 44)
        let error = try JSONSerialization.jsonObject(with: Data(missing.standardOutput.utf8)) as? [String: Any]
        #expect(error?["status"] as? Int == -25300)
    }

    @Test func badCommandLinesExitWithUsage() throws {
        let home = try freshHome()
        #expect(try clavis(["no-such-verb"], home: home).status == 2)
        #expect(try clavis(["find-generic-password", "-Z"], home: home).status == 2)
        #expect(try clavis(["add-internet-password", "-P", "port"], home: home).status == 2)
        let help = try clavis(["help"], home: home)
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("find-generic-password"))
    }

    @Test func passcodeIsCheckedByUnlock() throws {
        let home = try freshHome()
        #expect(try clavis(["add-generic-password", "-a", "gina", "-s", "s", "-w", "pw"], home: home).status == 0)
        #expect(try clavis(["set-keychain-password", "-p", "1234"], home: home).status == 0)
        // A new process starts locked; without a terminal to ask on, WhenUnlocked items are out of reach.
        let locked = try clavis(["find-generic-password", "-a", "gina", "-w"], home: home)
        #expect(locked.status == 36, "\(locked.standardError)")  // errSecInteractionNotAllowed's low byte
        #expect(try clavis(["unlock-keychain", "-p", "0000"], home: home).status == 51)
        #expect(try clavis(["unlock-keychain", "-p", "1234"], home: home).status == 0)
        #expect(try clavis(["set-keychain-password", "-o", "0000", "-p", "5678"], home: home).status == 51)
        #expect(try clavis(["set-keychain-password", "-o", "1234", "-p", ""], home: home).status == 0)
        #expect(try clavis(["unlock-keychain", "-p", "anything"], home: home).status == 0)
    }

    @Test func processesNeverSeeAnotherGroupsItems() throws {
        // The clavis process (group "clavis") and this test process (the test entitlements) share one home.
        let service = TestKeychain.uniqueService()
        let home = TestKeychain.keychainHome
        let add = try clavis(["add-generic-password", "-a", "cli", "-s", service, "-w", "cli-secret"], home: home)
        #expect(add.status == 0, "\(add.standardError)")
        addGenericPassword(service: service, account: "tests")
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ])
        let accounts = (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccount as String] as? String }
        #expect(accounts == ["tests"])
        let cliView = try clavis(["find-generic-password", "-s", service, "-a", "tests"], home: home)
        #expect(cliView.status == 44)
        let cliWithGroup = try clavis(
            ["find-generic-password", "-s", service, "--access-group", TestKeychain.defaultGroup], home: home)
        #expect(cliWithGroup.status == 30)  // errSecMissingEntitlement's low byte
    }
}

/// Writes an executable askpass program `askpass` in `folder` with `script` as its text, and returns its path.
private func writeAskpass(in folder: String, _ script: String) throws -> String {
    let askpass = folder + "/askpass"
    try script.write(toFile: askpass, atomically: true, encoding: .utf8)
    chmod(askpass, 0o755)
    return askpass
}
