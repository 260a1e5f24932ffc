internal import CProcessHardening

/// What a process of Clavis sets about itself: whether it dumps core or may be inspected, how its allocator returns
/// memory, how many files it may open.
public enum ProcessLimits {
    /// Turns core dumps off and makes the process non-dumpable (which also refuses ptrace attach by other processes
    /// of the same user); true on success. Called first thing, before any secret is read.
    @discardableResult
    public static func disableCoreDumps() -> Bool {
        clavis_disable_core_dumps() == 0
    }

    /// Lets processes of this process's own user look into it again (dumpable), core dumps staying off, so that a
    /// daemon of the same user without `CAP_SYS_PTRACE` can read its `/proc` entries and identify it; true on
    /// success.
    @discardableResult
    public static func allowInspectionByOwnUser() -> Bool {
        clavis_allow_inspection_by_own_user() == 0
    }

    /// Makes every allocation of 128 KiB or more a mapping of its own, unmapped when freed, so that a daemon's large
    /// buffers go back to the system; true on success.
    @discardableResult
    public static func returnLargeFrees() -> Bool {
        clavis_return_large_frees() == 0
    }

    /// Raises the soft limit on open files to the hard one, at most `most`; true on success.
    @discardableResult
    public static func raiseOpenFileLimit(to most: UInt) -> Bool {
        clavis_raise_open_file_limit(most) == 0
    }
}
