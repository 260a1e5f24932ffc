#include "secret_service_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/// A client leaving the bus (`NameOwnerChanged` of a unique name to no owner) ends its sessions and prompts.
static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *ignored) {
    (void)ignored;
    clavis_secret_service *service = userdata;
    const char *name = NULL;
    const char *old_owner = NULL;
    const char *new_owner = NULL;
    if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    if (name[0] != ':' || new_owner[0] != '\0') return 0;
    forget_caller(service, name);
    if (service->handler == NULL) return 0;
    clavis_ss_request request = request_for(CLAVIS_SS_CLIENT_GONE);
    request.path = SECRETS_ROOT;
    request.sender = name;
    clavis_ss_reply *reply = reply_new();
    if (reply == NULL) return 0;
    service->handler(service->context, &request, reply);
    reply_free(reply);
    return 0;
}

clavis_secret_service *clavis_secret_service_open(int *error, int *owns_name) {
    *owns_name = 0;
    if (clavis_systemd() == NULL) {
        *error = -ELIBACC;
        return NULL;
    }
    clavis_secret_service *service = calloc(1, sizeof *service);
    if (service == NULL) {
        *error = -ENOMEM;
        return NULL;
    }
    atomic_init(&service->references, 1);
    pthread_mutex_init(&service->lock, NULL);
    service->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int result = service->wake >= 0 ? sd_bus_open_user(&service->bus) : -errno;
    if (result >= 0) result = register_objects(service);
    if (result >= 0) {
        result = sd_bus_match_signal(service->bus, &service->slots[7], "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, service);
    }
    if (result < 0) {
        *error = result;
        clavis_secret_service_close(service);
        return NULL;
    }
    // No SD_BUS_NAME_REPLACE_EXISTING and no queueing: another provider keeps the name.
    *owns_name = sd_bus_request_name(service->bus, SECRETS_NAME, 0) >= 0;
    return service;
}

/// Milliseconds until the bus's next deadline (`sd_bus_get_timeout`, on CLOCK_MONOTONIC), or -1 for none.
static int milliseconds_until(uint64_t deadline) {
    if (deadline == UINT64_MAX) return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t microseconds = (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000;
    if (deadline <= microseconds) return 0;
    uint64_t milliseconds = (deadline - microseconds + 999) / 1000;
    return milliseconds > INT32_MAX ? INT32_MAX : (int)milliseconds;
}

int clavis_secret_service_run(clavis_secret_service *service, clavis_ss_handler handler, void *context) {
    service->handler = handler;
    service->context = context;
    for (;;) {
        int result = sd_bus_process(service->bus, NULL);
        if (result < 0) return result;
        if (result > 0) continue;
        emit_completions(service);
        int events = sd_bus_get_events(service->bus);
        if (events < 0) return events;
        uint64_t deadline = UINT64_MAX;
        result = sd_bus_get_timeout(service->bus, &deadline);
        if (result < 0) return result;
        // The bus, and the eventfd other threads write when a deferred prompt completes.
        struct pollfd watched[2] = {
            {.fd = sd_bus_get_fd(service->bus), .events = (short)events},
            {.fd = service->wake, .events = POLLIN},
        };
        if (poll(watched, 2, milliseconds_until(deadline)) < 0 && errno != EINTR) return -errno;
        if (watched[1].revents & POLLIN) {
            uint64_t count = 0;
            ssize_t drained = read(service->wake, &count, sizeof count);
            (void)drained; // EAGAIN: another wake-up already drained it
        }
    }
}

void clavis_secret_service_close(clavis_secret_service *service) {
    if (service == NULL) return;
    pthread_mutex_lock(&service->lock);
    service->closed = 1;
    pthread_mutex_unlock(&service->lock);
    for (size_t index = 0; index < sizeof service->slots / sizeof service->slots[0]; index++) {
        service->slots[index] = sd_bus_slot_unref(service->slots[index]);
    }
    forget_callers(service);
    sd_bus_message_unref(service->described_for);
    service->described_for = NULL;
    free(service->described_path);
    service->described_path = NULL;
    reply_free(service->described);
    service->described = NULL;
    service->bus = sd_bus_flush_close_unref(service->bus);
    release(service);
}

int reply_error(const clavis_ss_reply *reply, sd_bus_error *error) {
    if (reply->out_of_memory) return sd_bus_error_set_errno(error, ENOMEM);
    const char *name;
    switch (reply->error) {
    // A call on an object that does not exist is answered as gnome-keyring (GDBus) answers it; clients take both
    // this and the specification's NoSuchObject for "not found", older secretstorage only those two.
    case CLAVIS_SS_ERROR_NO_SUCH_OBJECT: name = SD_BUS_ERROR_UNKNOWN_METHOD; break;
    case CLAVIS_SS_ERROR_IS_LOCKED: name = SECRET_INTERFACE ".Error.IsLocked"; break;
    case CLAVIS_SS_ERROR_NO_SESSION: name = SECRET_INTERFACE ".Error.NoSession"; break;
    case CLAVIS_SS_ERROR_INVALID_ARGS: name = SD_BUS_ERROR_INVALID_ARGS; break;
    case CLAVIS_SS_ERROR_NOT_SUPPORTED: name = SD_BUS_ERROR_NOT_SUPPORTED; break;
    case CLAVIS_SS_ERROR_ACCESS_DENIED: name = SD_BUS_ERROR_ACCESS_DENIED; break;
    default: name = SD_BUS_ERROR_FAILED; break;
    }
    return sd_bus_error_set(error, name, reply->message);
}

void emit_signals(sd_bus *bus, const clavis_ss_reply *reply, const char *sender) {
    for (size_t index = 0; index < reply->signal_members.count; index++) {
        const char *member = reply->signal_members.items[index];
        const char *interface = strncmp(member, "Collection", 10) == 0 ? SECRET_INTERFACE ".Service"
                                                                        : SECRET_INTERFACE ".Collection";
        sd_bus_message *signal = NULL;
        int result = sd_bus_message_new_signal(bus, &signal, reply->signal_paths.items[index], interface, member);
        if (result >= 0 && reply->signals_private) {
            result = sender != NULL ? sd_bus_message_set_destination(signal, sender) : -EINVAL;
        }
        if (result >= 0) result = sd_bus_message_append(signal, "o", reply->signal_objects.items[index]);
        if (result >= 0) sd_bus_send(bus, signal, NULL);
        sd_bus_message_unref(signal);
    }
}
