internal import ClavisCore

extension PasscodeKDF {
    /// The scrypt cost range `calibrated(targetSeconds:)` chooses from: N = 2^14 ... 2^20.
    public static let calibratedCostLog2Range = 14...20

    /// scrypt calibrated on this machine so one derivation takes about `targetSeconds` (default 0.1): times
    /// N = 2^14, scales N as a power of two, clamps costLog2 to 14...20 and picks a fresh random salt.
    public static func calibrated(targetSeconds: Double = 0.1) -> PasscodeKDF {
        precondition(targetSeconds > 0, "calibration target must be positive")
        let range = calibratedCostLog2Range
        guard let probeSeconds = secondsPerDerivation(costLog2: range.lowerBound) else {
            // The probe only fails if scrypt cannot run at all; the minimum cost is the setting most likely to work.
            return scrypt(costLog2: range.lowerBound)
        }
        // scrypt's time is linear in N: double N while that brings the estimate nearer the target on a log scale.
        var costLog2 = range.lowerBound
        var estimate = probeSeconds
        while costLog2 < range.upperBound, estimate * 2 < targetSeconds * 2.0.squareRoot() {
            costLog2 += 1
            estimate *= 2
        }
        return scrypt(costLog2: costLog2)
    }

    /// The faster of two timed scrypt derivations at the given cost, or nil if derivation fails.
    private static func secondsPerDerivation(costLog2: Int) -> Double? {
        let probe = scrypt(costLog2: costLog2)
        let passcode = SecureRandom.secureBytes(count: 16)
        let clock = ContinuousClock()
        var fastest: Duration?
        for _ in 0..<2 {
            var succeeded = false
            let elapsed = clock.measure { succeeded = (try? probe.deriveKey(from: passcode)) != nil }
            guard succeeded else { return nil }
            fastest = Swift.min(fastest ?? elapsed, elapsed)
        }
        guard let fastest else { return nil }
        let parts = fastest.components
        return Swift.max(Double(parts.seconds) + Double(parts.attoseconds) / 1e18, 1e-6)
    }
}
