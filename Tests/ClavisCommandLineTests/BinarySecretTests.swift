import ClavisTestSupport
import Foundation
import Testing

/// Secrets that are not text, and secrets of several lines, through the `clavis` command line.
@Suite(.preparedKeychain) struct BinarySecretTests {
    @Test func aPasswordThatIsNotUTF8IsPrintedAsHexAndStoredBackFromHex() throws {
        let home = try makeTemporaryFolder("clavis-binary") + "/home"
        let added = try ClavisBinary.run(
            ["add-generic-password", "-a", "me", "-s", "bin", "-X", "00ff0a41"], home: home)
        #expect(added.status == 0, "\(added.standardError)")
        let found = try ClavisBinary.run(["find-generic-password", "-a", "me", "-s", "bin", "-w"], home: home)
        #expect(found.status == 0)
        #expect(found.standardOutput == "00ff0a41\n")
        // The same bytes, read through Apple's API shape (-g shows them in hexadecimal as well).
        let shown = try ClavisBinary.run(["find-generic-password", "-a", "me", "-s", "bin", "-g"], home: home)
        #expect(shown.standardError.contains("0x00FF0A41"))
        let copy = try ClavisBinary.run(
            [
                "add-generic-password", "-a", "me", "-s", "copy", "-X",
                found.standardOutput.trimmingCharacters(in: .newlines),
            ],
            home: home)
        #expect(copy.status == 0)
        let again = try ClavisBinary.run(["find-generic-password", "-a", "me", "-s", "copy", "-w"], home: home)
        #expect(again.standardOutput == "00ff0a41\n")
        #expect(try ClavisBinary.run(["add-generic-password", "-s", "odd", "-X", "abc"], home: home).status == 2)
        #expect(
            try ClavisBinary.run(["add-generic-password", "-s", "both", "-X", "ab", "-w", "x"], home: home).status == 2)
    }

    @Test func printableASCIIPasswordsArePrintedAsText() throws {
        let home = try makeTemporaryFolder("clavis-binary") + "/home"
        _ = try ClavisBinary.run(["add-internet-password", "-a", "me", "-s", "host", "-w", " ~plain-7"], home: home)
        let found = try ClavisBinary.run(["find-internet-password", "-s", "host", "-w"], home: home)
        #expect(found.standardOutput == " ~plain-7\n")
    }

    /// Valid UTF-8 is not enough: an escape sequence, a NUL, a line break or "é" printed raw would reach the
    /// terminal, so `-w` prints them in hexadecimal, as `security` does for any byte outside 0x20…0x7E.
    @Test func passwordsWithControlOrNonASCIIBytesArePrintedAsHex() throws {
        let home = try makeTemporaryFolder("clavis-binary") + "/home"
        for (service, hex) in [
            ("accent", "c3a96dc3a9"), ("escape", "1b5b324a"), ("nul", "610062"), ("newline", "610a62"),
            ("delete", "7f"), ("tab", "6109"),
        ] {
            let added = try ClavisBinary.run(["add-generic-password", "-s", service, "-X", hex], home: home)
            #expect(added.status == 0, "\(added.standardError)")
            let found = try ClavisBinary.run(["find-generic-password", "-s", service, "-w"], home: home)
            #expect(found.standardOutput == hex + "\n", "\(service)")
        }
    }

    @Test func dashReadsAllOfStandardInputWhileAPromptReadsOneLine() throws {
        let home = try makeTemporaryFolder("clavis-multiline") + "/home"
        let whole = try ClavisBinary.run(
            ["add-generic-password", "-s", "pem", "-w", "-"], home: home, input: "line one\nline two\n")
        #expect(whole.status == 0, "\(whole.standardError)")
        let found = try ClavisBinary.run(["find-generic-password", "-s", "pem", "-w"], home: home)
        let stored = Data("line one\nline two\n".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(found.standardOutput == stored + "\n", "kept byte for byte, line breaks included (shown in hex)")
        let oneLine = try ClavisBinary.run(
            ["add-generic-password", "-s", "line", "-w"], home: home, input: "first\nsecond\n")
        #expect(oneLine.status == 0)
        let line = try ClavisBinary.run(["find-generic-password", "-s", "line", "-w"], home: home)
        #expect(line.standardOutput == "first\n", "one line, without its line break")
    }
}

/// Standard input that cannot be read is an error, never an empty (or partial) secret.
@Suite(.preparedKeychain) struct UnreadableInputTests {
    @Test(arguments: [["-w", "-"], ["-w"]])
    func aSecretFromUnreadableInputIsAnErrorAndNothingIsStored(flags: [String]) throws {
        let home = try makeTemporaryFolder("clavis-unreadable") + "/home"
        // A folder as standard input: read(2) fails with EISDIR.
        let command = ([ClavisBinary.path, "add-generic-password", "-s", "dir"] + flags).joined(separator: " ")
        let added = try runProcess(
            "/bin/sh", ["-c", "exec \(command) < /"], environment: ClavisBinary.environment(home: home))
        #expect(added.status != 0, "\(added.standardError)")
        #expect(added.standardError.contains("Is a directory"), "\(added.standardError)")
        #expect(try ClavisBinary.run(["find-generic-password", "-s", "dir"], home: home).status == 44)
    }
}

/// A new secret typed at a terminal is asked twice, as `security` asks.
@Suite(.preparedKeychain) struct RetypedSecretTests {
    @Test func aNewSecretTypedAtATerminalMustBeRetypedTheSame() throws {
        let home = try makeTemporaryFolder("clavis-retype") + "/home"
        let environment = ClavisBinary.environment(home: home)
        let command = [ClavisBinary.path, "add-generic-password", "-a", "me", "-s", "tty", "-w"]
        let differ = try runOnTerminal(
            command, environment: environment,
            answers: [("password data for new item:", "first-4410"), ("retype password data", "other-4410")])
        #expect(differ.status != 0, "\(differ.transcript)")
        #expect(differ.transcript.contains("differ"))
        #expect(try ClavisBinary.run(["find-generic-password", "-s", "tty"], home: home).status == 44)
        let same = try runOnTerminal(
            command, environment: environment,
            answers: [("password data for new item:", "same-4410"), ("retype password data", "same-4410")])
        #expect(same.status == 0, "\(same.transcript)")
        let found = try ClavisBinary.run(["find-generic-password", "-s", "tty", "-w"], home: home)
        #expect(found.standardOutput == "same-4410\n")
    }
}
