#ifndef CLAVIS_PROCESS_HARDENING_H
#define CLAVIS_PROCESS_HARDENING_H

#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/// Keeps secrets held by this process out of core dumps and away from same-user debuggers: no core file, and
/// the process is not dumpable (which also refuses ptrace attach by other processes of the same user).
/// prctl is variadic, which Swift cannot call. Returns 0 on success.
static inline int clavis_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    int limited = setrlimit(RLIMIT_CORE, &none);
    int undumpable = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return limited == 0 && undumpable == 0 ? 0 : -1;
}

/// Makes every allocation of 128 KiB or more a mapping of its own, unmapped when freed: a daemon's large buffers go
/// back to the system once freed rather than staying in a thread's malloc arena (glibc otherwise raises this
/// threshold after the first large free, up to 32 MiB). Returns 0 on success.
static inline int clavis_return_large_frees(void) {
    return mallopt(M_MMAP_THRESHOLD, 128 * 1024) == 1 ? 0 : -1;
}

/// Raises the soft limit on open files to the hard one (at most `most`): a daemon holds a few descriptors for each
/// client process it identified. Returns 0 on success.
static inline int clavis_raise_open_file_limit(unsigned long most) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    rlim_t wanted = limit.rlim_max < most ? limit.rlim_max : most;
    if (limit.rlim_cur >= wanted) return 0;
    limit.rlim_cur = wanted;
    return setrlimit(RLIMIT_NOFILE, &limit);
}

/// Lets processes of this process's own user look into it again (dumpable), core dumps staying off: a daemon of the
/// same user without CAP_SYS_PTRACE can then read its /proc entries and identify it. Returns 0 on success.
static inline int clavis_allow_inspection_by_own_user(void) {
    if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1) return 0;
    return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

#endif
