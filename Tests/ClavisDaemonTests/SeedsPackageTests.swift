import ClavisTestSupport
import Foundation
import Testing

/// A package outside this repository, depending on it by path, compiles the seeds' functions copied unchanged
/// (each file with only the imports it has in the seed) and they do what the seeds say.
///
/// Slow on first run (it builds Clavis again as a dependency); the package and its build folder are kept under
/// `.build/seeds-package` so later runs are incremental.
@Suite(.serialized, .preparedKeychain) struct SeedsPackageTests {
    @Test(.timeLimit(.minutes(30)))
    func seedsFunctionsCompileInAnOutsidePackageAndBehaveAsTheSeedsSay() throws {
        let executable = try Self.buildSeedsPackage()
        let folder = try makeTemporaryFolder("clavis-seeds")
        let home = folder + "/home"
        let (appA, appB, script) = try Self.apps(in: folder)
        try Self.checkSeeds(appA: appA, appB: appB) { entitlements, arguments, input in
            try runProcess(
                executable, arguments,
                environment: [
                    "CLAVIS_HOME": home, "CLAVIS_ENTITLEMENTS": entitlements, "CLAVIS_BIOMETRY_SCRIPT": script,
                    "CLAVIS_ASKPASS": "",
                ], input: input)
        }
    }

    /// The same, with both apps served by clavisd in system mode: each a copy of the seeds' executable registered
    /// with its entitlements (the daemon ignores CLAVIS_ENTITLEMENTS), the second process reading what the first
    /// shared through the daemon.
    @Test(.timeLimit(.minutes(30)))
    func seedsFunctionsBehaveTheSameThroughTheDaemon() throws {
        let executable = try Self.buildSeedsPackage()
        let folder = try makeTemporaryFolder("clavis-seeds-daemon")
        chmod(folder, 0o755)
        let (appA, appB, script) = try Self.apps(in: folder)
        var copies: [String: String] = [:]
        var registrations: [String: [String: Any]] = [:]
        for (name, entitlements) in [("a", appA), ("b", appB)] {
            let copy = folder + "/seeds-" + name
            try FileManager.default.copyItem(atPath: executable, toPath: copy)
            copies[entitlements] = copy
            let plist =
                try PropertyListSerialization.propertyList(
                    from: Data(contentsOf: URL(fileURLWithPath: entitlements)), format: nil) as? [String: Any]
            registrations[name + ".json"] = [
                "executable": copy, "application-identifier": plist?["application-identifier"] ?? "",
                "keychain-access-groups": plist?["keychain-access-groups"] ?? [],
                // App A sets the keychain passcode in the seeds' last step: an administrator's right.
                "keychain-administrator": name == "a",
            ]
        }
        // The daemon's own sensor counts, not the script a client names: the clients name one that always matches,
        // with a finger of its own enrolled (a biometryCurrentSet item is bound to the daemon's enrolment, not this).
        try TestDaemon.giveToDaemonUser(script)
        let daemon = try TestDaemon(mode: "system", apps: registrations, options: ["--biometry-script", script])
        defer { daemon.stop() }
        let clientScript = folder + "/always-matches.json"
        try Data(#"{"enrolled": ["a-finger-of-its-own"], "outcomes": [], "whenEmpty": "match"}"#.utf8)
            .write(to: URL(fileURLWithPath: clientScript))
        try Self.checkSeeds(appA: appA, appB: appB) { entitlements, arguments, input in
            try runProcess(
                copies[entitlements] ?? executable, arguments,
                environment: [
                    "CLAVIS_SOCKET": daemon.socket, "CLAVIS_HOME": folder + "/unused", "CLAVIS_ENTITLEMENTS": "",
                    "CLAVIS_BIOMETRY_SCRIPT": clientScript, "CLAVIS_ASKPASS": "",
                ], input: input)
        }
        let left = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: script)))
        #expect((left as? [String: Any])?["outcomes"] as? [String] == [], "the daemon's sensor made both matches")

        // saveWithBiometry's item through the daemon, with the client's always-matching script still named: no read
        // without an authentication the daemon's sensor made; a read with an evaluated context; after the daemon's
        // enrolment changed, unreadable for good.
        func readBiometryItem(_ how: String, sensor: String) throws -> String {
            try Data(sensor.utf8).write(to: URL(fileURLWithPath: script))
            let output = try runProcess(
                copies[appA] ?? executable, ["read-biometry", "bio-key", how],
                environment: [
                    "CLAVIS_SOCKET": daemon.socket, "CLAVIS_HOME": folder + "/unused", "CLAVIS_ENTITLEMENTS": "",
                    "CLAVIS_BIOMETRY_SCRIPT": clientScript, "CLAVIS_ASKPASS": "",
                ], input: "1234\n")
            #expect(output.status == 0, "\(output.standardError)")
            return output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let noMatch = #"{"enrolled": ["right-index"], "outcomes": [], "whenEmpty": "no-match"}"#
        #expect(try readBiometryItem("fail", sensor: noMatch) == "-25308")
        #expect(try readBiometryItem("context", sensor: noMatch) == "-25293")
        let oneMatch = #"{"enrolled": ["right-index"], "outcomes": ["match"], "whenEmpty": "no-match"}"#
        #expect(try readBiometryItem("context", sensor: oneMatch) == "0 two")
        let changed = #"{"enrolled": ["right-index", "left-thumb"], "outcomes": ["match"], "whenEmpty": "match"}"#
        #expect(try readBiometryItem("context", sensor: changed) == "-25293")
        #expect(!FileManager.default.fileExists(atPath: folder + "/unused"), "nothing went to an embedded keychain")
    }

    /// Entitlements for app A (its own group and the shared one) and app B (the shared one), and a scripted sensor
    /// with two matches (the second save's delete, then the read).
    private static func apps(in folder: String) throws -> (appA: String, appB: String, script: String) {
        let appA = try writeEntitlements(
            in: folder, name: "a", applicationIdentifier: "TEAM123456.com.example.a",
            groups: ["TEAM123456.com.example.a", "group.com.example.shared"])
        let appB = try writeEntitlements(
            in: folder, name: "b", applicationIdentifier: "TEAM123456.com.example.b",
            groups: ["group.com.example.shared"])
        let script = folder + "/biometry.json"
        try Data(#"{"enrolled": ["right-index"], "outcomes": ["match", "match"]}"#.utf8)
            .write(to: URL(fileURLWithPath: script))
        return (appA, appB, script)
    }

    /// Runs the seeds' functions as the two apps, through `launch` (entitlements, arguments, standard input).
    private static func checkSeeds(
        appA: String, appB: String, launch: (String, [String], String?) throws -> ProcessOutput
    ) throws {
        func run(_ entitlements: String, _ arguments: String..., input: String? = nil) throws -> String {
            let output = try launch(entitlements, arguments, input)
            #expect(output.status == 0, "Seeds \(arguments) failed: \(output.standardError)")
            return output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        // A token saved twice reads back the second value; a missing one throws unexpectedStatus(-25300).
        #expect(try run(appA, "token", "com.example.api") == "second")
        #expect(try run(appA, "read-token", "com.example.missing") == "unexpectedStatus(-25300)")
        // savePassword / readPassword / deletePassword.
        #expect(try run(appA, "passwords", "com.example.mail") == "pa55 nil")
        // saveSharedToken stores into the shared group; a second process holding that group reads it.
        #expect(try run(appA, "share-write", "shared-value").isEmpty)
        #expect(try run(appB, "share-read") == "0 shared-value group.com.example.shared")
        // The second process does not see the first one's own group.
        #expect(try run(appB, "read-token", "com.example.api") == "unexpectedStatus(-25300)")
        // Last, as it sets a passcode (later processes start locked): the biometry item, which needs a keychain
        // passcode, is stored with its access control and protection; saving again replaces it after one match for
        // the delete; reading it takes another.
        #expect(try run(appA, "set-passcode", input: "1234\n").isEmpty)
        #expect(try run(appA, "biometry", "bio-key", input: "1234\n") == "0 two aku true")
    }

    /// Writes the package under `.build/seeds-package`, builds it, and returns its executable's path.
    static func buildSeedsPackage() throws -> String {
        // The seeds' code, which SecurityTests also compiles in (its SeedsPackage folder).
        let fixture = repositoryRoot + "/Tests/SecurityTests/SeedsPackage/Sources/Seeds"
        let base = repositoryRoot + "/.build/seeds-package"
        let package = base + "/package"
        let sources = package + "/Sources/Seeds"
        let manager = FileManager.default
        try manager.createDirectory(atPath: sources, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: fixture) {
            try writeIfChanged(manager.contents(atPath: fixture + "/" + name) ?? Data(), to: sources + "/" + name)
        }
        let identity = URL(fileURLWithPath: repositoryRoot).lastPathComponent.lowercased()
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "SeedsApp",
                dependencies: [.package(path: "\(repositoryRoot)")],
                targets: [
                    .executableTarget(
                        name: "Seeds",
                        dependencies: [
                            .product(name: "Security", package: "\(identity)"),
                            .product(name: "LocalAuthentication", package: "\(identity)"),
                            .product(name: "ClavisClient", package: "\(identity)"),
                        ]
                    )
                ]
            )

            """
        try writeIfChanged(Data(manifest.utf8), to: package + "/Package.swift")
        let swift = try locateSwift()
        let build = try runProcess(
            swift, ["build", "--package-path", package, "--scratch-path", base + "/build", "--product", "Seeds"])
        #expect(
            build.status == 0,
            "swift build of the seeds package failed:\n\(build.standardOutput)\n\(build.standardError)")
        return base + "/build/debug/Seeds"
    }

    private static func writeIfChanged(_ data: Data, to path: String) throws {
        if FileManager.default.contents(atPath: path) == data { return }
        try data.write(to: URL(fileURLWithPath: path))
    }

    private static func locateSwift() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/swift") {
            return "\(folder)/swift"
        }
        throw CocoaError(.fileNoSuchFile)
    }
}
