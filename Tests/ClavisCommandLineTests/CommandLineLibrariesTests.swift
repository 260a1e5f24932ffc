import ClavisTestSupport
import Foundation
import Testing

/// `clavis` is built on the native client API: it links FoundationEssentials, never Foundation or its ICU, whose
/// loading would cost every command its start-up (the libraries a debug build loads are what `ldd` lists).
@Suite struct CommandLineLibrariesTests {
    @Test(arguments: ["clavis", "git-credential-clavis"])
    func theCommandLineLoadsNeitherFoundationNorICU(program: String) throws {
        let binary = URL(fileURLWithPath: ClavisBinary.path).deletingLastPathComponent().appendingPathComponent(program)
        let listed = try runProcess("/usr/bin/ldd", [binary.path])
        #expect(listed.status == 0, "\(listed.standardError)")
        try #require(
            listed.standardOutput.contains("libswiftCore"),
            "this test reads the libraries of a debug build, whose Swift libraries are shared")
        #expect(listed.standardOutput.contains("libFoundationEssentials"))
        for library in ["libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU"] {
            #expect(!listed.standardOutput.contains(library), "\(program) loads \(library)")
        }
    }
}

/// libsystemd is loaded on first use through one binding (`CSystemdLibrary`), never linked: a program that meets no
/// bus, journal or systemd loads none of it.
@Suite struct SystemdLibraryTests {
    @Test(arguments: ["clavis", "clavisd", "git-credential-clavis"])
    func noProgramLinksLibsystemd(program: String) throws {
        let binary = URL(fileURLWithPath: ClavisBinary.path).deletingLastPathComponent().appendingPathComponent(program)
        let listed = try runProcess("/usr/bin/ldd", [binary.path])
        #expect(listed.status == 0, "\(listed.standardError)")
        try #require(listed.standardOutput.contains("libc.so"))
        #expect(!listed.standardOutput.contains("libsystemd"), "\(program) links libsystemd")
    }
}
