#include "CLogind.h"

#include <errno.h>
#include <stdlib.h>
#include "CSystemdLibrary.h"

#define LOGIN1 "org.freedesktop.login1"

struct clavis_logind {
    sd_bus *bus;
    sd_bus_slot *lock_slot;
    sd_bus_slot *unlock_slot;
    sd_bus_slot *sleep_slot;
    clavis_logind_lock_handler handler;
    void *context;
};

/// A session's `Lock` or `Unlock`: its user is asked of logind (the session object's `User` property, `(uo)`), so
/// that only that user's keychain is concerned; a session whose user cannot be learnt concerns nobody.
static void on_session_event(sd_bus_message *message, clavis_logind *watch, int locked) {
    const char *path = sd_bus_message_get_path(message);
    if (path == NULL || watch->handler == NULL) return;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int result = sd_bus_get_property(watch->bus, LOGIN1, path, LOGIN1 ".Session", "User", &error, &reply, "(uo)");
    if (result >= 0) {
        uint32_t uid = 0;
        const char *user_path = NULL;
        if (sd_bus_message_read(reply, "(uo)", &uid, &user_path) >= 0) watch->handler(watch->context, uid, locked);
    }
    sd_bus_message_unref(reply);
    sd_bus_error_free(&error);
}

static int on_session_lock(sd_bus_message *message, void *userdata, sd_bus_error *ignored) {
    (void)ignored;
    on_session_event(message, userdata, 1);
    return 0;
}

static int on_session_unlock(sd_bus_message *message, void *userdata, sd_bus_error *ignored) {
    (void)ignored;
    on_session_event(message, userdata, 0);
    return 0;
}

/// `PrepareForSleep(true)`: every keychain locks before the machine sleeps; `false` (waking) changes nothing.
static int on_prepare_for_sleep(sd_bus_message *message, void *userdata, sd_bus_error *ignored) {
    (void)ignored;
    clavis_logind *watch = userdata;
    int sleeping = 0;
    if (sd_bus_message_read(message, "b", &sleeping) >= 0 && sleeping && watch->handler != NULL) {
        watch->handler(watch->context, CLAVIS_LOGIND_EVERY_USER, 1);
    }
    return 0;
}

clavis_logind *clavis_logind_open(int *error) {
    if (clavis_systemd() == NULL) {
        *error = -ELIBACC;
        return NULL;
    }
    clavis_logind *watch = calloc(1, sizeof *watch);
    if (watch == NULL) {
        *error = -ENOMEM;
        return NULL;
    }
    int result = sd_bus_open_system(&watch->bus);
    if (result >= 0) {
        result = sd_bus_match_signal(watch->bus, &watch->lock_slot, LOGIN1, NULL, LOGIN1 ".Session", "Lock",
                                     on_session_lock, watch);
    }
    if (result >= 0) {
        result = sd_bus_match_signal(watch->bus, &watch->unlock_slot, LOGIN1, NULL, LOGIN1 ".Session", "Unlock",
                                     on_session_unlock, watch);
    }
    if (result >= 0) {
        result = sd_bus_match_signal(watch->bus, &watch->sleep_slot, LOGIN1, "/org/freedesktop/login1",
                                     LOGIN1 ".Manager", "PrepareForSleep", on_prepare_for_sleep, watch);
    }
    if (result < 0) {
        *error = result;
        clavis_logind_close(watch);
        return NULL;
    }
    return watch;
}

int clavis_logind_run(clavis_logind *watch, clavis_logind_lock_handler handler, void *context) {
    watch->handler = handler;
    watch->context = context;
    for (;;) {
        int result = sd_bus_process(watch->bus, NULL);
        if (result < 0) return result;
        if (result > 0) continue;
        result = sd_bus_wait(watch->bus, UINT64_MAX);
        if (result < 0 && result != -EINTR) return result;
    }
}

void clavis_logind_close(clavis_logind *watch) {
    if (watch == NULL) return;
    sd_bus_slot_unref(watch->lock_slot);
    sd_bus_slot_unref(watch->unlock_slot);
    sd_bus_slot_unref(watch->sleep_slot);
    sd_bus_flush_close_unref(watch->bus);
    free(watch);
}
