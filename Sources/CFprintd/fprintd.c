#include "CFprintd.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "CSystemdLibrary.h"
#include <time.h>

#define FPRINT_NAME "net.reactivated.Fprint"
#define FPRINT_DEVICE FPRINT_NAME ".Device"

int clavis_fprintd_loadable(void) { return clavis_systemd() != NULL; }

/// Opens the system bus and finds the default reader's path (copied into `device`).
static int open_device(sd_bus **bus, char *device, size_t capacity) {
    if (!clavis_fprintd_loadable() || sd_bus_open_system(bus) < 0) return CLAVIS_FPRINTD_UNAVAILABLE;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    const char *path = NULL;
    int outcome = CLAVIS_FPRINTD_UNAVAILABLE;
    if (sd_bus_call_method(*bus, FPRINT_NAME, "/net/reactivated/Fprint/Manager", FPRINT_NAME ".Manager",
                            "GetDefaultDevice", &error, &reply, "") >= 0
        && sd_bus_message_read(reply, "o", &path) >= 0 && strlen(path) < capacity) {
        strcpy(device, path);
        outcome = CLAVIS_FPRINTD_MATCH;
    }
    sd_bus_error_free(&error);
    if (reply != NULL) sd_bus_message_unref(reply);
    if (outcome != CLAVIS_FPRINTD_MATCH) *bus = sd_bus_flush_close_unref(*bus);
    return outcome;
}

/// Calls a device method taking one string (or none when `argument` is NULL) and ignoring its answer.
static int call_device(sd_bus *bus, const char *device, const char *member, const char *argument,
                       sd_bus_error *error) {
    return argument != NULL
        ? sd_bus_call_method(bus, FPRINT_NAME, device, FPRINT_DEVICE, member, error, NULL, "s", argument)
        : sd_bus_call_method(bus, FPRINT_NAME, device, FPRINT_DEVICE, member, error, NULL, "");
}

/// Appends `name` and a zero byte to `buffer` at `*used`; false when it does not fit.
static int append_name(char *buffer, size_t capacity, size_t *used, const char *name) {
    size_t length = strlen(name) + 1;
    if (*used + length > capacity) return 0;
    memcpy(buffer + *used, name, length);
    *used += length;
    return 1;
}

int clavis_fprintd_enrolled(const char *user, char *buffer, size_t capacity) {
    sd_bus *bus = NULL;
    char device[512];
    int outcome = open_device(&bus, device, sizeof device);
    if (outcome != CLAVIS_FPRINTD_MATCH) return outcome;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    char **fingers = NULL;
    if (sd_bus_call_method(bus, FPRINT_NAME, device, FPRINT_DEVICE, "ListEnrolledFingers", &error, &reply, "s",
                            user) < 0) {
        outcome = sd_bus_error_has_name(&error, FPRINT_NAME ".Error.NoEnrolledPrints")
            ? CLAVIS_FPRINTD_NOT_ENROLLED : CLAVIS_FPRINTD_UNAVAILABLE;
    } else if (sd_bus_message_read_strv(reply, &fingers) < 0) {
        outcome = CLAVIS_FPRINTD_UNAVAILABLE;
    } else if (fingers == NULL || fingers[0] == NULL) {
        outcome = CLAVIS_FPRINTD_NOT_ENROLLED;
    } else {
        size_t used = 0;
        int fits = append_name(buffer, capacity, &used, device);
        for (char **name = fingers; fits && *name != NULL; name++) fits = append_name(buffer, capacity, &used, *name);
        outcome = fits ? (int)used : CLAVIS_FPRINTD_UNAVAILABLE;
    }
    if (fingers != NULL) {
        for (char **name = fingers; *name != NULL; name++) free(*name);
        free(fingers);
    }
    sd_bus_error_free(&error);
    if (reply != NULL) sd_bus_message_unref(reply);
    sd_bus_flush_close_unref(bus);
    return outcome;
}

/// Where a verification stands, updated by the VerifyStatus signal.
struct verification {
    int done;
    int outcome;
};

static int on_verify_status(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    struct verification *verification = userdata;
    const char *result = NULL;
    int done = 0;
    if (sd_bus_message_read(message, "sb", &result, &done) < 0) return 0;
    if (strcmp(result, "verify-match") == 0) {
        verification->outcome = CLAVIS_FPRINTD_MATCH;
    } else if (strcmp(result, "verify-no-match") == 0) {
        verification->outcome = CLAVIS_FPRINTD_NO_MATCH;
    } else if (strncmp(result, "verify-retry", 12) == 0 || strcmp(result, "verify-swipe-too-short") == 0
               || strcmp(result, "verify-finger-not-centered") == 0
               || strcmp(result, "verify-remove-and-retry") == 0) {
        return 0;  // fprintd asks for another touch and goes on
    } else {
        verification->outcome = CLAVIS_FPRINTD_UNAVAILABLE;  // disconnected, unknown error
    }
    if (done) verification->done = 1;
    return 0;
}

static uint64_t now_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

int clavis_fprintd_verify(const char *user, int timeout_seconds) {
    sd_bus *bus = NULL;
    char device[512];
    int outcome = open_device(&bus, device, sizeof device);
    if (outcome != CLAVIS_FPRINTD_MATCH) return outcome;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_slot *slot = NULL;
    struct verification verification = {0, CLAVIS_FPRINTD_UNAVAILABLE};
    if (call_device(bus, device, "Claim", user, &error) < 0) {
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        return CLAVIS_FPRINTD_UNAVAILABLE;
    }
    if (sd_bus_match_signal(bus, &slot, FPRINT_NAME, device, FPRINT_DEVICE, "VerifyStatus", on_verify_status,
                             &verification) < 0) {
        outcome = CLAVIS_FPRINTD_UNAVAILABLE;
    } else if (call_device(bus, device, "VerifyStart", "any", &error) < 0) {
        outcome = sd_bus_error_has_name(&error, FPRINT_NAME ".Error.NoEnrolledPrints")
            ? CLAVIS_FPRINTD_NOT_ENROLLED : CLAVIS_FPRINTD_UNAVAILABLE;
    } else {
        uint64_t deadline = now_usec() + (uint64_t)timeout_seconds * 1000000u;
        while (!verification.done) {
            int processed = sd_bus_process(bus, NULL);
            if (processed < 0) break;
            if (processed > 0) continue;
            uint64_t now = now_usec();
            if (now >= deadline) break;
            if (sd_bus_wait(bus, deadline - now) < 0) break;
        }
        outcome = verification.done ? verification.outcome
                  : now_usec() >= deadline ? CLAVIS_FPRINTD_TIMED_OUT : CLAVIS_FPRINTD_UNAVAILABLE;
        sd_bus_error_free(&error);
        call_device(bus, device, "VerifyStop", NULL, &error);
    }
    sd_bus_error_free(&error);
    call_device(bus, device, "Release", NULL, &error);
    sd_bus_error_free(&error);
    if (slot != NULL) sd_bus_slot_unref(slot);
    sd_bus_flush_close_unref(bus);
    return outcome;
}
