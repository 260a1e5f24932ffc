#ifndef CLAVIS_FPRINTD_H
#define CLAVIS_FPRINTD_H

#include <stddef.h>

// fprintd (net.reactivated.Fprint on the system D-Bus) through libsystemd's sd-bus, loaded with dlopen on first
// use, so that programs linking Clavis do not load libsystemd until a fingerprint is asked for.

/// What a call to fprintd ended with.
enum clavis_fprintd_outcome {
    CLAVIS_FPRINTD_MATCH = 0,
    /// No libsystemd, no system bus, no fprintd, no reader, the reader claimed by another program, or an error.
    CLAVIS_FPRINTD_UNAVAILABLE = -1,
    CLAVIS_FPRINTD_NOT_ENROLLED = -2,
    CLAVIS_FPRINTD_NO_MATCH = -3,
    /// No finger was presented before the time ran out.
    CLAVIS_FPRINTD_TIMED_OUT = -4,
};

/// True when libsystemd can be loaded (nothing is asked of the bus).
int clavis_fprintd_loadable(void);

/// Writes fprintd's default reader's object path, then the finger names enrolled for `user`, each followed by a
/// zero byte, into `buffer`; returns the number of bytes written, or an outcome (negative).
int clavis_fprintd_enrolled(const char *user, char *buffer, size_t capacity);

/// One verification of `user` (any enrolled finger) on the default reader, waiting at most `timeout_seconds` for a
/// finger: CLAVIS_FPRINTD_MATCH, _NO_MATCH, _NOT_ENROLLED, _TIMED_OUT or _UNAVAILABLE.
int clavis_fprintd_verify(const char *user, int timeout_seconds);

#endif
