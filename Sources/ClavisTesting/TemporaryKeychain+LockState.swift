import ClavisClient
import ClavisCore
import ClavisEmbedded

extension TemporaryKeychain {
    /// Locks the device: `WhenUnlocked` items answer `errSecInteractionNotAllowed` until `unlock(passcode:)`;
    /// `AfterFirstUnlock` and `Always` items stay readable.
    public func lock() throws(KeychainError) {
        try client().lock()
    }

    /// Unlocks the device with `passcode`, by default the one `setPasscode(_:)` set (a wrong one fails with
    /// `authFailed` and counts toward the lockout that `advanceClock(by:)` waits out).
    public func unlock(passcode: String? = nil) throws(KeychainError) {
        let passcode = passcode ?? state.withLock { $0.passcode }
        try client().unlock(passcode: passcode.map { SecureBytes(Array($0.utf8)) })
    }

    /// Restarts the device: with a passcode set, only `Always` items open until `unlock(passcode:)` (before first
    /// unlock, `AfterFirstUnlock` items answer `errSecInteractionNotAllowed` too).
    ///
    /// - Throws: with a private daemon, `io` when it does not start again.
    public func restart() throws(KeychainError) {
        ServiceDirectory.process.host.close(home: home)
        guard let daemon else { return }
        daemon.stop()
        ServiceDirectory.disconnect(socket: daemon.socket)
        try daemon.start(state: home.path)
    }

    /// Sets the device passcode, or changes it from the one set before; the keychain is unlocked afterwards, and the
    /// passcode prompt of `LAContext` answers with it.
    public func setPasscode(_ passcode: String) throws(KeychainError) {
        try changePasscode(to: passcode)
    }

    /// Removes the device passcode: as on Apple's devices, every `WhenPasscodeSetThisDeviceOnly` item is deleted,
    /// and the keychain stays unlocked.
    public func removePasscode() throws(KeychainError) {
        try changePasscode(to: nil)
    }

    private func changePasscode(to new: String?) throws(KeychainError) {
        let current = state.withLock { $0.passcode }
        try client().setPasscode(
            new.map { SecureBytes(Array($0.utf8)) }, current: current.map { SecureBytes(Array($0.utf8)) },
            strength: .cheapForTesting)
        state.withLock { $0.passcode = new }
        try writePasscodeAnswer(new)
    }
}
