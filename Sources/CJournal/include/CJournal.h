#ifndef CLAVIS_JOURNAL_H
#define CLAVIS_JOURNAL_H

#include <stddef.h>

// The systemd journal through libsystemd's sd-journal. Plain C types only, so that no system header reaches the
// modules that import this one.

/// True when a journal listens on this machine: a datagram can be addressed to its native socket.
int clavis_journal_available(void);

/// Sends one entry of `count` fields, each `NAME=value` of `lengths[i]` bytes (a value may hold any byte, a line
/// break included); 0, or a negative errno.
int clavis_journal_send(const char *const *fields, const size_t *lengths, int count);

#endif
