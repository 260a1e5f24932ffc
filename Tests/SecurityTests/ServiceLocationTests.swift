import ClavisClient
import ClavisTestSupport
import Foundation
import Testing

/// The in-process suites reach the keychain the run intends: the embedded keychain in `swift test`, the daemon under
/// `Tests/through-daemon.sh`.
@Suite(.preparedKeychain) struct ServiceLocationTests {
    @Test func callsGoWhereTheRunIntends() throws {
        let throughDaemon = ProcessInfo.processInfo.environment["CLAVIS_TEST_THROUGH_DAEMON"] == "1"
        #expect((TestKeychain.daemon != nil) == throughDaemon)
        let status = try KeychainClient().status()
        if let daemon = TestKeychain.daemon {
            #expect(status.location == .daemon(socket: daemon.socket))
            #expect(status.applicationIdentifier == TestKeychain.applicationIdentifier)
            #expect(
                status.accessGroups == [TestKeychain.defaultGroup, TestKeychain.sharedGroup, TestKeychain.appGroup])
        } else {
            #expect(status.location == .embedded(home: TestKeychain.keychainHome))
        }
    }
}
