// swift-tools-version:6.0
import PackageDescription

// The shipped binaries (release) link with lld and pack their relative relocations (DT_RELR, glibc 2.36): with the
// Swift runtime linked in statically, `clavis` carries some 73,000 of them, which the loader otherwise applies one
// 24-byte entry at a time on every start; packed, they take 14 KB instead of 1.7 MB, and the binary stays
// position-independent.
let shippedBinaryLinking: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(configuration: .release))
]

let package = Package(
    name: "Clavis",
    products: [
        .executable(name: "clavis-bench", targets: ["clavis-bench"]),
        .executable(name: "clavisd", targets: ["clavisd"]),
        .library(name: "pam_clavis", type: .dynamic, targets: ["PAMClavis"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Only ClavisSystem imports these three.
        .systemLibrary(name: "CProcessHardening"),
        .target(name: "CUnixSocket"),
        .target(name: "CChildProcess"),
        // libsystemd (sd-bus, the journal, socket activation and readiness), loaded on first use: the one binding of
        // it, which every module below that speaks to the bus or to systemd calls through. No program links it.
        .target(name: "CSystemdLibrary", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CFprintd", dependencies: ["CSystemdLibrary"]),
        .target(name: "CJournal", dependencies: ["CSystemdLibrary"]),
        .target(name: "CLogind", dependencies: ["CSystemdLibrary"]),
        .target(name: "CSecretService", dependencies: ["CSystemdLibrary"]),
        // Another Secret Service provider, read by `clavis import-secret-service`.
        .target(name: "CSecretSource", dependencies: ["CSystemdLibrary"]),
        // The Secret Service of another provider, read by `clavis import-secret-service`.
        .target(name: "ClavisBus", dependencies: ["ClavisCore", "CSecretSource"]),
        // pam_clavis.so, the PAM module (`libpam_clavis.so` in the build folder; installed as pam_clavis.so).
        .target(name: "PAMClavis", linkerSettings: [.linkedLibrary("pam")]),
        .systemLibrary(name: "CTSS2", providers: [.apt(["libtss2-dev"])]),
        // CTPM loads tpm2-tss on first use (dlopen): only a program that meets a TPM loads its libraries.
        .target(name: "CTPM", dependencies: ["CTSS2"]),
        .target(name: "ClavisTPM", dependencies: ["ClavisCore", "CTPM"]),
        // libpq's header; CPostgres loads the library on first use (dlopen), so only a program that syncs loads it.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "CPostgres", dependencies: ["CLibPQ"], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "ClavisSync", dependencies: ["ClavisCore", "ClavisCrypto", "CPostgres"]),
        // The system layer: sockets, processes, files, system calls retried on EINTR, errno as SystemError.
        .target(name: "ClavisSystem", dependencies: ["CUnixSocket", "CChildProcess", "CProcessHardening"]),
        .target(name: "ClavisCore", dependencies: ["ClavisSystem"]),
        .target(name: "ClavisCrypto", dependencies: ["ClavisCore", "COpenSSL"]),
        .target(name: "ClavisSQLite", dependencies: ["CSQLite"]),
        .target(
            name: "ClavisStore",
            dependencies: ["ClavisCore", "ClavisCrypto", "ClavisSQLite", "ClavisTPM", "ClavisSystem"]),
        .target(name: "ClavisIdentity", dependencies: ["ClavisCore", "ClavisCrypto", "ClavisSystem"]),
        .target(name: "ClavisIPC", dependencies: ["ClavisCore", "ClavisSystem"]),
        .target(
            name: "ClavisServer",
            dependencies: [
                "ClavisCore", "ClavisCrypto", "ClavisIdentity", "ClavisEmbedded", "ClavisIPC", "ClavisSystem",
                "ClavisAuthentication", "CJournal", "CLogind", "CSecretService", "CSystemdLibrary",
            ]),
        .executableTarget(
            name: "clavisd", dependencies: ["ClavisServer", "ClavisCore", "ClavisSystem"],
            linkerSettings: shippedBinaryLinking),
        .target(
            name: "ClavisEmbedded",
            dependencies: [
                "ClavisCore", "ClavisCrypto", "ClavisIdentity", "ClavisStore", "ClavisAuthentication", "ClavisTPM",
                "ClavisSync", "ClavisSystem",
            ]),
        .executableTarget(
            name: "clavis-bench",
            dependencies: ["ClavisStore", "ClavisCore", "ClavisCrypto", "ClavisSQLite", "ClavisTPM", "ClavisSystem"]),
        .testTarget(name: "ClavisCoreTests", dependencies: ["ClavisCore"]),
        .testTarget(name: "ClavisSystemTests", dependencies: ["ClavisSystem"]),
        // What several test targets share: a real PostgreSQL server for a test.
        .target(
            name: "ClavisTestSupport", dependencies: ["ClavisSync", "ClavisCore"], path: "Tests/ClavisTestSupport"),
        .testTarget(
            name: "ClavisSyncTests",
            dependencies: [
                "ClavisSync", "ClavisCore", "ClavisCrypto", "ClavisStore", "ClavisEmbedded", "ClavisTestSupport",
            ]),
        .testTarget(name: "ClavisCryptoTests", dependencies: ["ClavisCrypto", "ClavisCore"]),
        .testTarget(name: "ClavisSQLiteTests", dependencies: ["ClavisSQLite"]),
        .testTarget(name: "ClavisIPCTests", dependencies: ["ClavisIPC", "ClavisCore"]),
        .testTarget(name: "ClavisServerTests", dependencies: ["ClavisServer", "ClavisCore"]),
        .testTarget(name: "ClavisIdentityTests", dependencies: ["ClavisIdentity", "ClavisCore"]),
        .testTarget(
            name: "ClavisStoreTests",
            dependencies: ["ClavisStore", "ClavisCore", "ClavisCrypto", "ClavisSQLite", "ClavisSystem"]),
    ],
    swiftLanguageModes: [.v6]
)

// Apple's API names, for Linux only: on Apple platforms these module names belong to the system frameworks.
#if os(Linux)
    package.products += [
        .library(name: "Security", targets: ["Security"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .library(name: "ClavisClient", targets: ["ClavisClient"]),
        .library(name: "ClavisTesting", targets: ["ClavisTesting"]),
        .executable(name: "clavis", targets: ["clavis"]),
        .executable(name: "clavis-fuzz", targets: ["clavis-fuzz"]),
        .executable(name: "git-credential-clavis", targets: ["git-credential-clavis"]),
    ]
    package.targets += [
        .target(
            name: "ClavisAuthentication", dependencies: ["ClavisCore", "ClavisCrypto", "ClavisSystem", "CFprintd"]),
        .target(
            name: "ClavisClient",
            dependencies: [
                "ClavisCore", "ClavisCrypto", "ClavisIdentity", "ClavisEmbedded", "ClavisIPC",
                "ClavisAuthentication", "ClavisSystem",
            ]),
        .target(
            name: "Security", dependencies: ["ClavisCore", "ClavisCrypto", "ClavisClient", "ClavisAuthentication"]),
        .target(
            name: "LocalAuthentication",
            dependencies: ["Security", "ClavisCore", "ClavisClient", "ClavisAuthentication"]),
        .executableTarget(
            name: "clavis",
            dependencies: [
                "ClavisCore", "ClavisClient", "ClavisAuthentication", "ClavisIdentity", "ClavisCrypto", "ClavisBus",
                "ClavisSync", "ClavisSystem",
            ],
            linkerSettings: shippedBinaryLinking),
        .executableTarget(name: "clavis-fuzz", dependencies: ["Security"]),
        .executableTarget(
            name: "git-credential-clavis", dependencies: ["ClavisClient", "ClavisCore", "ClavisSystem"],
            linkerSettings: shippedBinaryLinking),
        .target(
            name: "ClavisTesting", dependencies: ["ClavisClient", "ClavisCore", "ClavisEmbedded", "ClavisSystem"]),
        .testTarget(name: "ClavisTestingTests", dependencies: ["ClavisTesting", "Security", "LocalAuthentication"]),
        .testTarget(
            name: "ClavisTPMTests",
            dependencies: [
                "ClavisTPM", "ClavisStore", "ClavisCore", "ClavisCrypto", "ClavisClient", "ClavisSQLite", "Security",
                "ClavisTestSupport",
            ]),
        .testTarget(name: "ClavisAuthenticationTests", dependencies: ["ClavisAuthentication", "ClavisCore"]),
        .testTarget(
            name: "SecurityTests",
            dependencies: [
                "Security", "LocalAuthentication", "ClavisClient", "ClavisCore", "ClavisStore", "ClavisCrypto",
                "ClavisSQLite", "ClavisIPC", "ClavisServer", "clavis-fuzz", "ClavisTestSupport", "ClavisSync",
            ],
            exclude: ["SeedsPackage"]),
        // The clavis command line and git-credential-clavis, run as a user runs them.
        .testTarget(
            name: "ClavisCommandLineTests",
            dependencies: ["Security", "ClavisClient", "ClavisCore", "ClavisIPC", "ClavisTestSupport"]),
        // ClavisClient: how the client picks and checks the service it talks to.
        .testTarget(name: "ClavisClientTests", dependencies: ["ClavisClient", "ClavisCore", "ClavisTestSupport"]),
        // clavisd as its clients meet it: the daemon, its Secret Service, PAM, app identity, through real sockets and
        // buses (SecurityTests keeps Apple's API, run a second time through clavisd by Tests/through-daemon.sh).
        .testTarget(
            name: "ClavisDaemonTests",
            dependencies: [
                "Security", "LocalAuthentication", "ClavisClient", "ClavisCore", "ClavisIPC", "ClavisServer",
                "ClavisTestSupport",
            ]),
    ]
    // The benchmark also measures through Apple's API, which exists only here.
    // Apple's calls the test targets share (`copyMatching`, `addGenericPassword`, `withKeychainHome`).
    for target in package.targets where target.name == "ClavisTestSupport" {
        target.dependencies += ["Security", "ClavisClient"]
    }
    for target in package.targets where target.name == "clavis-bench" {
        target.dependencies += ["Security", "ClavisClient", "ClavisIdentity", "ClavisSync"]
    }
#endif
