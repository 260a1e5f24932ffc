#ifndef CLAVIS_SECRET_SERVICE_INTERNAL_H
#define CLAVIS_SECRET_SERVICE_INTERNAL_H

#include "CSecretService.h"

#include <systemd/sd-bus.h>

#define SECRETS_NAME "org.freedesktop.secrets"
#define SECRETS_ROOT "/org/freedesktop/secrets"
#define SECRET_INTERFACE "org.freedesktop.Secret"

/// Strings the reply owns.
typedef struct {
    char **items;
    size_t count;
    size_t capacity;
} string_list;

/// A secret the reply owns (its bytes zeroed when freed).
typedef struct {
    char *item;
    char *session;
    char *content_type;
    uint8_t *parameters;
    size_t parameter_count;
    uint8_t *value;
    size_t value_count;
} stored_secret;

struct clavis_ss_reply {
    int failed;
    int out_of_memory;
    clavis_ss_error error;
    char *message;
    string_list paths[2];
    uint8_t *bytes;
    size_t byte_count;
    int has_bytes;
    stored_secret *secrets;
    size_t secret_count;
    size_t secret_capacity;
    char *label;
    int locked;
    uint64_t created;
    uint64_t modified;
    string_list attribute_names;
    string_list attribute_values;
    int dismissed;
    string_list signal_paths;
    string_list signal_members;
    string_list signal_objects;
    int signals_private;
};

struct clavis_secret_service {
    sd_bus *bus;
    sd_bus_slot *slots[8];
    clavis_ss_handler handler;
    void *context;
    /// The last object described, for the incoming message it was described for: the properties of one GetAll are
    /// read from one description.
    sd_bus_message *described_for;
    char *described_path;
    clavis_ss_reply *described;
};

/// An empty reply; NULL when memory runs out.
clavis_ss_reply *reply_new(void);

/// Frees the reply and zeroes the secrets it holds.
void reply_free(clavis_ss_reply *reply);

/// The object vtables and their registration on `service`'s bus; a negative errno on failure.
int register_objects(clavis_secret_service *service);

/// Fills the caller's identity into `request` from the bus daemon (`GetConnectionCredentials` of `sender`).
void read_caller(sd_bus *bus, const char *sender, clavis_ss_request *request);

/// Turns a failed reply into the D-Bus error the specification names.
int reply_error(const clavis_ss_reply *reply, sd_bus_error *error);

/// Emits the signals the handler asked for: to every listener, or to `sender` alone when the reply says so.
void emit_signals(sd_bus *bus, const clavis_ss_reply *reply, const char *sender);

#endif
