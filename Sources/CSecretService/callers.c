/// Who each client is, as the bus daemon says: its process and user, asked once per client.
///
/// `GetConnectionCredentials` answers what the bus daemon recorded when the client connected, the same for the whole
/// life of its connection; asking it on every call cost a round trip through the bus daemon each time. The answer is
/// kept by unique name (which the bus never gives to another connection) until the client leaves the bus
/// (`NameOwnerChanged`). The program still checks, on every call, that the process runs the program it was
/// identified by.
#include "secret_service_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct caller_credentials {
    char *sender;
    int32_t pid;
    uint32_t uid;
    /// The process's pidfd when the bus gave one (`ProcessFD`), else -1; each call gets its own copy.
    int pidfd;
    caller_credentials *next;
};

/// Asks the bus daemon for `sender`'s credentials; 0 when it answered with a process and a user.
static int ask_bus(sd_bus *bus, const char *sender, caller_credentials *credentials) {
    credentials->pid = 0;
    credentials->uid = UINT32_MAX;
    credentials->pidfd = -1;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *answer = NULL;
    int result = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "GetConnectionCredentials", &error, &answer, "s", sender);
    if (result >= 0) result = sd_bus_message_enter_container(answer, 'a', "{sv}");
    while (result > 0 && (result = sd_bus_message_enter_container(answer, 'e', "sv")) > 0) {
        const char *key = NULL;
        if (sd_bus_message_read(answer, "s", &key) < 0) break;
        if (strcmp(key, "ProcessID") == 0) {
            uint32_t pid = 0;
            if (sd_bus_message_read(answer, "v", "u", &pid) >= 0) credentials->pid = (int32_t)pid;
        } else if (strcmp(key, "UnixUserID") == 0) {
            uint32_t uid = UINT32_MAX;
            if (sd_bus_message_read(answer, "v", "u", &uid) >= 0) credentials->uid = uid;
        } else if (strcmp(key, "ProcessFD") == 0) {
            int descriptor = -1;
            // The message owns the descriptor it carries: the credentials keep their own copy.
            if (sd_bus_message_read(answer, "v", "h", &descriptor) >= 0 && descriptor >= 0) {
                credentials->pidfd = fcntl(descriptor, F_DUPFD_CLOEXEC, 3);
            }
        } else {
            sd_bus_message_skip(answer, "v");
        }
        sd_bus_message_exit_container(answer);
    }
    sd_bus_message_unref(answer);
    sd_bus_error_free(&error);
    return result >= 0 && credentials->pid > 0 && credentials->uid != UINT32_MAX ? 0 : -1;
}

void read_caller(clavis_secret_service *service, const char *sender, clavis_ss_request *request) {
    request->sender = sender;
    request->pid = 0;
    request->uid = UINT32_MAX;
    request->pidfd = -1;
    if (sender == NULL) return;
    caller_credentials *known = service->callers;
    while (known != NULL && strcmp(known->sender, sender) != 0) known = known->next;
    if (known == NULL) {
        caller_credentials asked;
        int kept = ask_bus(service->bus, sender, &asked) == 0 && (known = calloc(1, sizeof *known)) != NULL &&
                   (known->sender = strdup(sender)) != NULL;
        if (!kept) {
            // Not kept: a client that left meanwhile, or a bus that would not say, is asked again next time.
            free(known);
            request->pid = asked.pid;
            request->uid = asked.uid;
            request->pidfd = asked.pidfd;
            return;
        }
        known->pid = asked.pid;
        known->uid = asked.uid;
        known->pidfd = asked.pidfd;
        known->next = service->callers;
        service->callers = known;
    }
    request->pid = known->pid;
    request->uid = known->uid;
    request->pidfd = known->pidfd >= 0 ? fcntl(known->pidfd, F_DUPFD_CLOEXEC, 3) : -1;
}

static void free_credentials(caller_credentials *credentials) {
    if (credentials->pidfd >= 0) close(credentials->pidfd);
    free(credentials->sender);
    free(credentials);
}

void forget_caller(clavis_secret_service *service, const char *sender) {
    for (caller_credentials **link = &service->callers; *link != NULL; link = &(*link)->next) {
        if (strcmp((*link)->sender, sender) == 0) {
            caller_credentials *gone = *link;
            *link = gone->next;
            free_credentials(gone);
            return;
        }
    }
}

void forget_callers(clavis_secret_service *service) {
    while (service->callers != NULL) {
        caller_credentials *gone = service->callers;
        service->callers = gone->next;
        free_credentials(gone);
    }
}
