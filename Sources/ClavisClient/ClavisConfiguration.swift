public import ClavisCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Everything a client takes from its environment, read once where the program starts and passed down as a
/// value: no library below reads the environment.
///
/// | setting | variable | default |
/// |---|---|---|
/// | keychain daemon | `CLAVIS_SOCKET` | `$XDG_RUNTIME_DIR/clavis/clavisd.sock`, else `/run/clavis/clavisd.sock`, when a daemon listens there; else the embedded keychain |
/// | keychain folder (embedded) | `CLAVIS_HOME` | `$XDG_DATA_HOME/clavis` (absolute only), else `~/.local/share/clavis` |
/// | entitlements file | `CLAVIS_ENTITLEMENTS` | none: the executable's name is the identity |
/// | Apple's rules by default | `CLAVIS_COMPAT=ios` | the macOS file keychain's (lenient) |
/// | passcode prompt | `CLAVIS_ASKPASS` | the controlling terminal |
/// | biometric sensor (embedded; a daemon uses its own) | `CLAVIS_BIOMETRY_SCRIPT` (the scripted sensor) | fprintd when installed |
/// | app registry folder (`clavis app`, user mode) | `XDG_CONFIG_HOME` (absolute only) | `~/.config` |
/// | device key of a keychain created now | `CLAVIS_DEVICE_KEY` (`tpm` or `file`), `CLAVIS_TPM_PCRS` (`0,7`) | `file`, no PCRs |
/// | the TPM (tpm2-tss TCTI string) | `CLAVIS_TPM_TCTI` (`swtpm:host=127.0.0.1,port=2321`) | `device:/dev/tpmrm0` |
/// | where the user sits, for a daemon's `pinentry` | `GPG_TTY`, `TERM`, `DISPLAY`, `LC_ALL`/`LC_CTYPE`/`LANG`, `LC_MESSAGES` | standard input's terminal |
public struct ClavisConfiguration: Sendable, Hashable {
    /// The embedded keychain's folder.
    public var home: KeychainHome {
        get { settings.values.home }
        set { changeSettings { $0.home = newValue } }
    }
    /// Which setting chose `home`, for `clavis status`.
    public var homeSource: String {
        get { settings.values.homeSource }
        set { changeSettings { $0.homeSource = newValue } }
    }
    /// The entitlements file of the embedded keychain's caller, if any.
    public var entitlementsPath: String? {
        get { settings.values.entitlementsPath }
        set { changeSettings { $0.entitlementsPath = newValue } }
    }
    /// True when calls follow the data-protection keychain's rules even without `kSecUseDataProtectionKeychain`.
    public var dataProtectionRulesByDefault: Bool {
        get { settings.values.dataProtectionRulesByDefault }
        set { changeSettings { $0.dataProtectionRulesByDefault = newValue } }
    }
    /// The askpass program that asks for passcodes, if any.
    public var askpassProgram: String? {
        get { settings.values.askpassProgram }
        set { changeSettings { $0.askpassProgram = newValue } }
    }
    /// The scripted biometric sensor's file, if any.
    public var biometryScript: String? {
        get { settings.values.biometryScript }
        set { changeSettings { $0.biometryScript = newValue } }
    }
    /// The daemon's socket named by `CLAVIS_SOCKET`: calls go there, and fail when no daemon answers.
    public var daemonSocket: String? {
        get { settings.values.daemonSocket }
        set { changeSettings { $0.daemonSocket = newValue } }
    }
    /// The user's runtime folder (`XDG_RUNTIME_DIR`), where a user daemon's socket is looked for.
    public var runtimeDirectory: String? {
        get { settings.values.runtimeDirectory }
        set { changeSettings { $0.runtimeDirectory = newValue } }
    }
    /// Where the user sits, for a daemon's own passcode prompt (`PasscodePrompt.hints`, GnuPG's option names).
    public var promptHints: [String: String] {
        get { settings.values.promptHints }
        set { changeSettings { $0.promptHints = newValue } }
    }
    /// Where this process's keychain calls read the time (reuse windows, the embedded keychain's passcode lockout):
    /// the system's, unless a test moves an adjustable clock (`ClavisTesting`). A daemon keeps its own time.
    public var clock: KeychainClock {
        get { settings.values.clock }
        set { changeSettings { $0.clock = newValue } }
    }
    /// False keeps calls on the embedded keychain even when a daemon listens at the user or system socket (a test's
    /// temporary keychain, `ClavisTesting`); `daemonSocket` still names a daemon explicitly.
    public var looksForDaemon: Bool {
        get { settings.values.looksForDaemon }
        set { changeSettings { $0.looksForDaemon = newValue } }
    }
    /// The user's configuration folder (`XDG_CONFIG_HOME`, absolute only), where a user's app registry lives.
    public var configHome: String? {
        get { settings.values.configHome }
        set { changeSettings { $0.configHome = newValue } }
    }
    /// The user's home folder (`HOME`), `/` when unset.
    public var userHome: String {
        get { settings.values.userHome }
        set { changeSettings { $0.userHome = newValue } }
    }
    /// The device-key binding a keychain created now gets, as written (`CLAVIS_DEVICE_KEY`: `tpm` or `file`).
    public var deviceKeyBinding: String? {
        get { settings.values.deviceKeyBinding }
        set { changeSettings { $0.deviceKeyBinding = newValue } }
    }
    /// The TPM's TCTI string (`CLAVIS_TPM_TCTI`).
    public var tpmTCTI: String? {
        get { settings.values.tpmTCTI }
        set { changeSettings { $0.tpmTCTI = newValue } }
    }
    /// The PCRs a new TPM-bound keychain's device key is sealed to, as written (`CLAVIS_TPM_PCRS`: `0,7`).
    public var tpmPCRs: String? {
        get { settings.values.tpmPCRs }
        set { changeSettings { $0.tpmPCRs = newValue } }
    }

    /// The settings, shared by copies until one of them changes: a configuration is copied several times on every
    /// keychain call, and copying its strings one by one took about 150 reference-count operations per call.
    private var settings: SharedSettings

    /// Changes the settings, copying them first when another configuration shares them.
    private mutating func changeSettings(_ change: (inout Settings) -> Void) {
        if !isKnownUniquelyReferenced(&settings) { settings = SharedSettings(settings.values) }
        change(&settings.values)
    }

    /// Configurations are equal when their settings are.
    public static func == (lhs: ClavisConfiguration, rhs: ClavisConfiguration) -> Bool {
        lhs.settings === rhs.settings || lhs.settings.values == rhs.settings.values
    }

    /// Hashes the settings.
    public func hash(into hasher: inout Hasher) { settings.values.hash(into: &hasher) }

    /// The device-key options these settings describe.
    ///
    /// - Throws: `param` naming a setting that is not understood.
    public func deviceKeyOptions() throws(KeychainError) -> DeviceKeyOptions {
        try DeviceKeyOptions(binding: deviceKeyBinding, tcti: tpmTCTI, pcrs: tpmPCRs)
    }

    /// Creates a configuration.
    public init(
        home: KeychainHome, homeSource: String = "given", entitlementsPath: String? = nil,
        dataProtectionRulesByDefault: Bool = false, askpassProgram: String? = nil, biometryScript: String? = nil
    ) {
        settings = SharedSettings(
            Settings(
                home: home, homeSource: homeSource, entitlementsPath: entitlementsPath,
                dataProtectionRulesByDefault: dataProtectionRulesByDefault, askpassProgram: askpassProgram,
                biometryScript: biometryScript))
    }

    /// This configuration with calls going to the daemon listening at `socket`.
    public func with(daemonSocket socket: String?) -> ClavisConfiguration {
        var changed = self
        changed.daemonSocket = socket
        return changed
    }

    /// The configuration an environment describes; empty values count as unset.
    public init(environment: [String: String]) {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        if let home = value("CLAVIS_HOME") {
            self.init(home: KeychainHome(path: home), homeSource: "CLAVIS_HOME")
        } else if let data = value("XDG_DATA_HOME"), data.hasPrefix("/") {
            self.init(home: KeychainHome(path: data + "/clavis"), homeSource: "XDG_DATA_HOME")
        } else {
            self.init(home: KeychainHome(path: (value("HOME") ?? "/") + "/.local/share/clavis"), homeSource: "HOME")
        }
        entitlementsPath = value("CLAVIS_ENTITLEMENTS")
        dataProtectionRulesByDefault = value("CLAVIS_COMPAT")?.lowercased() == "ios"
        askpassProgram = value("CLAVIS_ASKPASS")
        biometryScript = value("CLAVIS_BIOMETRY_SCRIPT")
        daemonSocket = value("CLAVIS_SOCKET")
        runtimeDirectory = value("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil }
        configHome = value("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
        userHome = value("HOME") ?? "/"
        deviceKeyBinding = value("CLAVIS_DEVICE_KEY")
        tpmTCTI = value("CLAVIS_TPM_TCTI")
        tpmPCRs = value("CLAVIS_TPM_PCRS")
        let hints: [(String, String?)] = [
            ("ttyname", value("GPG_TTY")), ("ttytype", value("TERM")), ("display", value("DISPLAY")),
            ("lc-ctype", value("LC_ALL") ?? value("LC_CTYPE") ?? value("LANG")),
            ("lc-messages", value("LC_ALL") ?? value("LC_MESSAGES") ?? value("LANG")),
        ]
        for case (let name, let hint?) in hints { promptHints[name] = hint }
    }

    /// The variables this configuration reads.
    public static let variableNames = [
        "CLAVIS_HOME", "XDG_DATA_HOME", "HOME", "CLAVIS_ENTITLEMENTS", "CLAVIS_COMPAT", "CLAVIS_ASKPASS",
        "CLAVIS_BIOMETRY_SCRIPT", "CLAVIS_SOCKET", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "GPG_TTY", "TERM", "DISPLAY",
        "LC_ALL",
        "LC_CTYPE", "LC_MESSAGES", "LANG", "CLAVIS_DEVICE_KEY", "CLAVIS_TPM_TCTI", "CLAVIS_TPM_PCRS",
    ]

    /// The configuration of this process: read from its environment on first use, then kept. A task (and the
    /// tasks it starts) may use another one: `withConfiguration(_:_:)`.
    public static var current: ClavisConfiguration { override ?? process }

    /// Runs `body` with `configuration` as `current` for this task and the tasks it starts: for programs that keep
    /// several keychains, and for tests.
    public static func withConfiguration<Result>(
        _ configuration: ClavisConfiguration, _ body: () throws -> Result
    ) rethrows -> Result {
        try $override.withValue(configuration, operation: body)
    }

    /// The asynchronous form of `withConfiguration(_:_:)`.
    public static func withConfiguration<Result>(
        _ configuration: ClavisConfiguration, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await $override.withValue(configuration, operation: body)
    }

    /// This configuration with another keychain folder.
    public func with(home path: String) -> ClavisConfiguration {
        var changed = self
        changed.home = KeychainHome(path: path)
        changed.homeSource = "given"
        return changed
    }

    @TaskLocal private static var override: ClavisConfiguration?

    private static let process = ClavisConfiguration(environment: processEnvironment())

    /// The variables this configuration reads, from the process environment: the one place a client reads it.
    private static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in variableNames {
            if let raw = getenv(name) { environment[name] = String(cString: raw) }
        }
        // GnuPG's convention: GPG_TTY names the terminal; without it, standard input's terminal if it is one.
        if environment["GPG_TTY"] == nil, let terminal = ttyname(0) {
            environment["GPG_TTY"] = String(cString: terminal)
        }
        return environment
    }
}

extension ClavisConfiguration {
    /// The values behind a configuration's properties (documented there).
    fileprivate struct Settings: Hashable {
        var home: KeychainHome
        var homeSource: String
        var entitlementsPath: String?
        var dataProtectionRulesByDefault: Bool
        var askpassProgram: String?
        var biometryScript: String?
        var daemonSocket: String?
        var runtimeDirectory: String?
        var promptHints: [String: String] = [:]
        var clock: KeychainClock = .system
        var looksForDaemon = true
        var configHome: String?
        var userHome = "/"
        var deviceKeyBinding: String?
        var tpmTCTI: String?
        var tpmPCRs: String?
    }

    /// Settings held by reference, so that copying a configuration retains one object. They change only through
    /// `changeSettings`, which copies them first unless this configuration alone holds them: no other thread can
    /// see a change, which is what makes the class `Sendable`.
    fileprivate final class SharedSettings: @unchecked Sendable {
        var values: Settings

        init(_ values: Settings) { self.values = values }
    }
}
