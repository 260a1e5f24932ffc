import ClavisStore
import Testing

@Suite struct KeychainHomeTests {
    @Test func clavisHomeWins() {
        let home = KeychainHome.fromEnvironment(["CLAVIS_HOME": "/srv/kc", "XDG_DATA_HOME": "/x", "HOME": "/h"])
        #expect(home.path == "/srv/kc")
        #expect(home.databasePath == "/srv/kc/keychain.db")
        #expect(home.deviceKeyPath == "/srv/kc/device.key")
    }

    @Test func xdgDataHomeThenTheXDGDefault() {
        #expect(KeychainHome.fromEnvironment(["XDG_DATA_HOME": "/x", "HOME": "/h"]).path == "/x/clavis")
        #expect(
            KeychainHome.fromEnvironment(["XDG_DATA_HOME": "relative", "HOME": "/h"]).path == "/h/.local/share/clavis")
        #expect(KeychainHome.fromEnvironment(["HOME": "/h"]).path == "/h/.local/share/clavis")
    }
}
