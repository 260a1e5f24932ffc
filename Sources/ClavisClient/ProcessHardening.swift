import ClavisSystem

/// Keeps the secrets a client process holds out of core dumps and away from debuggers of the same user.
public enum ProcessHardening {
    /// Turns core dumps off and makes the process non-dumpable (which also refuses ptrace attach by other
    /// processes of the same user). Call it first thing, before any secret is read; true on success.
    @discardableResult
    public static func disableCoreDumps() -> Bool {
        ProcessLimits.disableCoreDumps()
    }
}
