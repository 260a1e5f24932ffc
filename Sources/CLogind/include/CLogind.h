#ifndef CLAVIS_LOGIND_H
#define CLAVIS_LOGIND_H

#include <stdint.h>

/// The session events clavisd follows from logind on the system bus.
typedef struct clavis_logind clavis_logind;

/// The user whose session locked, or `CLAVIS_LOGIND_EVERY_USER` when the machine is about to sleep.
#define CLAVIS_LOGIND_EVERY_USER UINT32_MAX

/// Called on the watching thread for each event: `uid` is the session's user (every user before sleep); `locked` is 1
/// for a lock, 0 for a session's `Unlock` (which the daemon reports and otherwise ignores).
typedef void (*clavis_logind_lock_handler)(void *context, uint32_t uid, int locked);

/// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket) and subscribes to logind's
/// `Session.Lock`, `Session.Unlock` and `Manager.PrepareForSleep` signals. Returns NULL with `*error` set to a negative errno when the
/// bus cannot be reached or the subscription fails.
clavis_logind *clavis_logind_open(int *error);

/// Waits for logind's signals and calls `handler` for each (a session's `Lock` or `Unlock`, whose user is asked of
/// logind, or `PrepareForSleep(true)`), until the bus connection fails; returns that negative errno.
int clavis_logind_run(clavis_logind *watch, clavis_logind_lock_handler handler, void *context);

/// Closes the connection.
void clavis_logind_close(clavis_logind *watch);

#endif
