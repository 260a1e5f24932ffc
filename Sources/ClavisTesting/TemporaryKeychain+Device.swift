import ClavisClient
import ClavisCore
import ClavisEmbedded

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension TemporaryKeychain {
    /// Moves the app to a new device, as restoring a backup there does: the app's items are backed up, and restored
    /// into a new keychain with a new device key. `ThisDeviceOnly` items, and items whose access control needs an
    /// authentication, stay behind. The new device has no passcode and no biometry enrolled.
    ///
    /// - Throws: `interactionNotAllowed` while the keychain is locked (a backup needs it unlocked).
    public func moveToNewDevice() throws(KeychainError) {
        let passphrase = SecureBytes(Array("clavis-testing-backup".utf8))
        let (archive, _) = try client().exportBackup(passphrase: passphrase, strength: .cheapForTesting)
        let old = state.withLock { state in
            defer {
                state.device += 1
                state.passcode = nil
            }
            return state.device
        }
        // The old device's keychain is put aside (its folder removed with the kit's); the new one opens, under a new
        // device key, where calls already look: a `run` in progress reaches it too.
        ServiceDirectory.process.host.close(home: home)
        daemon?.stop()
        guard rename(home.path, folder.path + "/device-\(old)") == 0 else {
            throw KeychainError(.io, "cannot put the old device's keychain aside: \(String(cString: strerror(errno)))")
        }
        try writePasscodeAnswer(nil)
        try writeScript(BiometryScript())
        if let daemon {
            mkdir(home.path, 0o700)
            ServiceDirectory.disconnect(socket: daemon.socket)
            try daemon.start(state: home.path)
        }
        _ = try client().importBackup(archive, passphrase: passphrase)
    }

    /// Moves the clock of the keychain and of the `LAContext`s made in `run(_:)` ahead by `duration`: a reuse window
    /// runs out, a passcode lockout ends, without waiting.
    public func advanceClock(by duration: Duration) {
        clock.advance(by: duration)
    }
}
