import ClavisClient
import ClavisCore
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// git's credential helper protocol (gitcredentials(7)): `git-credential-clavis get|store|erase`, the credential
// described on standard input. Answers on standard output; failures on standard error with exit status 1, as git's
// own helpers do; an action it does not know is ignored (exit 0), so that later versions of git can add some.

/// Says why on standard error and exits with status 1.
func fail(_ message: String) -> Never {
    Array("git-credential-clavis: \(message)\n".utf8).withUnsafeBytes {
        _ = DescriptorOutput.writeAll($0, to: STDERR_FILENO)
    }
    exit(1)
}

ProcessHardening.disableCoreDumps()
let arguments = CommandLine.arguments.dropFirst()
guard let action = arguments.first, arguments.count == 1 else {
    fail("usage: git credential-clavis <get|store|erase>")
}
guard ["get", "store", "erase"].contains(action) else { exit(0) }

let input: SecureBytes
do throws(SecureReadError) {
    input = try SecureBytes.read(from: STDIN_FILENO, limit: GitCredential.inputLimit) ?? SecureBytes([])
} catch {
    fail("cannot read the credential on standard input")
}
let credential: GitCredential
do throws(GitCredential.InputError) {
    credential = try GitCredential(input)
} catch {
    fail(error.message)
}

do throws(KeychainError) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let items = GitKeychainItems(keychain: try KeychainClient(), now: Int64(now.tv_sec))
    switch action {
    case "get":
        if let answer = try items.get(credential) {
            answer.withUnsafeBytes { _ = DescriptorOutput.writeAll($0, to: STDOUT_FILENO) }
        }
    case "store": try items.store(credential)
    default: try items.erase(credential)
    }
} catch {
    fail("failed to \(action): \(error.code.message) (\(error.reason))")
}
