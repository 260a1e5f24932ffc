import ClavisTestSupport
import Foundation
import Testing

/// clavisd asking for the passcode itself through `pinentry` (`clavisd --pinentry`), played by a scripted program
/// speaking the Assuan protocol: the client passes its terminal and display as hints and never sees the passcode.
@Suite(.serialized) final class DaemonPinentryTests {
    private var daemons: [TestDaemon] = []

    deinit {
        for daemon in daemons { daemon.stop() }
    }

    @Test func theDaemonAsksThroughPinentryWithTheClientsHintsAndTheClientNeverAsks() throws {
        let folder = try makeTemporaryFolder("pinentry")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pinentry = try Self.writeScriptedPinentry(in: folder)
        let daemon = try TestDaemon(mode: "user", options: ["--pinentry", pinentry])
        daemons.append(daemon)
        let askpassCalled = folder + "/askpass-called"
        let askpass = try ClavisBinary.writeAskpass(in: folder, "#!/bin/sh\ntouch '\(askpassCalled)'\necho 7391\n")
        let environment = [
            "GPG_TTY": "/dev/pts/77", "TERM": "xterm-test", "DISPLAY": ":42", "LC_ALL": "", "LC_CTYPE": "C.UTF-8",
            "CLAVIS_ASKPASS": askpass,
        ]
        func clavis(_ arguments: String...) throws -> ProcessOutput {
            try daemon.client(arguments, environment: environment)
        }
        func answer(_ lines: String...) throws {
            try (lines.joined(separator: "\n") + "\n").write(
                toFile: folder + "/answers", atomically: true, encoding: .utf8)
        }
        for step in [
            ["add-generic-password", "-a", "me", "-s", "plain", "-w", "kept"], ["set-keychain-password", "-p", "7391"],
            [
                "add-generic-password", "-a", "me", "-s", "guarded", "-w", "behind the passcode", "--accessible",
                "aku", "--access-control", "devicePasscode",
            ],
            ["lock-keychain"],
        ] {
            let output = try daemon.client(step)
            #expect(output.status == 0, "\(step): \(output.standardError)")
        }

        // Unlocking: a wrong passcode, then the right one, both typed into the daemon's pinentry.
        try answer("1111", "7391")
        let read = try clavis("find-generic-password", "-s", "plain", "-w")
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.standardOutput == "kept\n")
        let commands = try String(contentsOfFile: folder + "/commands.log", encoding: .utf8)
        for expected in [
            "OPTION display=:42", "OPTION lc-ctype=C.UTF-8", "OPTION ttyname=/dev/pts/77", "OPTION ttytype=xterm-test",
            "SETTITLE Clavis", "SETERROR Wrong passcode", "GETPIN",
        ] {
            #expect(commands.contains(expected + "\n"), "pinentry was not told \(expected): \(commands)")
        }
        #expect(commands.components(separatedBy: "GETPIN\n").count - 1 == 2, "two passcodes asked: \(commands)")

        // An item whose access control needs the passcode: verified by the daemon through pinentry too.
        try answer("7391")
        let guarded = try clavis("find-generic-password", "-s", "guarded", "-w")
        #expect(guarded.status == 0, "\(guarded.standardError)")
        #expect(guarded.standardOutput == "behind the passcode\n")
        let afterGuarded = try String(contentsOfFile: folder + "/commands.log", encoding: .utf8)
        #expect(afterGuarded.components(separatedBy: "GETPIN\n").count - 1 == 3, "the item's passcode asked there")

        // Canceled in pinentry: errSecUserCanceled (-128, exit 128), and the client does not ask instead.
        #expect(try daemon.client(["lock-keychain"]).status == 0)
        try answer("CANCEL")
        let canceled = try clavis("find-generic-password", "-s", "plain", "-w")
        #expect(canceled.status == 128, "\(canceled.standardError)")
        #expect(canceled.standardOutput.isEmpty)

        #expect(!FileManager.default.fileExists(atPath: askpassCalled), "the client asked for the passcode itself")
        let everything = try String(contentsOfFile: folder + "/commands.log", encoding: .utf8)
        #expect(!everything.contains("7391") && !everything.contains("1111"), "a passcode was sent back to pinentry")
    }

    /// A pinentry played from `folder/answers` (one answer per `GETPIN`, `CANCEL` for the cancel button), writing
    /// every command it receives to `folder/commands.log`.
    static func writeScriptedPinentry(in folder: String) throws -> String {
        let path = folder + "/pinentry"
        try """
        #!/bin/sh
        echo "OK Pleased to meet you"
        while IFS= read -r line; do
            printf '%s\\n' "$line" >> '\(folder)/commands.log'
            case "$line" in
            GETPIN)
                answer=$(head -n 1 '\(folder)/answers'); sed -i 1d '\(folder)/answers'
                if [ "$answer" = CANCEL ]; then echo "ERR 83886179 Operation cancelled <Pinentry>"
                else echo "D $answer"; echo OK; fi ;;
            BYE) echo "OK closing connection"; exit 0 ;;
            *) echo OK ;;
            esac
        done

        """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }
}
