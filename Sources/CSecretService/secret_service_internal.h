#ifndef CLAVIS_SECRET_SERVICE_INTERNAL_H
#define CLAVIS_SECRET_SERVICE_INTERNAL_H

#include "CSecretService.h"

#include <pthread.h>
#include <stdatomic.h>
#include "CSystemdLibrary.h"

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
    int details_sealed;
    uint64_t created;
    uint64_t modified;
    string_list attribute_names;
    string_list attribute_values;
    int dismissed;
    string_list signal_paths;
    string_list signal_members;
    string_list signal_objects;
    int signals_private;
    int deferred;
};

/// A deferred prompt's outcome, waiting for the serving thread to emit it.
typedef struct completion {
    struct completion *next;
    char *path;
    int dismissed;
    char **objects;
    size_t count;
} completion;

/// What the bus daemon said of each client (callers.c).
typedef struct caller_credentials caller_credentials;

struct clavis_secret_service {
    sd_bus *bus;
    /// The clients' credentials, asked once each.
    caller_credentials *callers;
    sd_bus_slot *slots[8];
    clavis_ss_handler handler;
    void *context;
    /// The last object described, for the incoming message it was described for: the properties of one GetAll are
    /// read from one description.
    sd_bus_message *described_for;
    char *described_path;
    clavis_ss_reply *described;
    int described_with_children;
    /// Deferred prompts' outcomes, handed over by other threads under `lock`; `wake` (an eventfd) tells the serving
    /// thread. References: the opener's, and one per deferred prompt.
    pthread_mutex_t lock;
    completion *completions;
    int wake;
    int closed;
    atomic_int references;
};

#define SERVICE_INTERFACE SECRET_INTERFACE ".Service"
#define COLLECTION_INTERFACE SECRET_INTERFACE ".Collection"
#define ITEM_INTERFACE SECRET_INTERFACE ".Item"
#define SESSION_INTERFACE SECRET_INTERFACE ".Session"
#define PROMPT_INTERFACE SECRET_INTERFACE ".Prompt"

// ---- Reading arguments (arguments.c) ----

/// The arrays a request borrows for its attributes and objects, freed after the call.
typedef struct {
    const char **names;
    const char **values;
    char **objects;
} request_storage;

void storage_free(request_storage *storage);

/// Reads an `a{ss}` into the request's attributes (the strings stay in the message).
int read_attributes(sd_bus_message *message, clavis_ss_request *request, request_storage *storage);

/// Reads an `ao` into the request's objects.
int read_objects(sd_bus_message *message, clavis_ss_request *request, request_storage *storage);

/// Reads a secret, `(oayays)`.
int read_secret(sd_bus_message *message, clavis_ss_secret *secret);

/// Reads the `a{sv}` properties of CreateCollection or CreateItem (`<interface>.Label`, `<interface>.Attributes`).
int read_properties(sd_bus_message *message, const char *interface, clavis_ss_request *request,
                    request_storage *storage);

// ---- Calling the handler (calls.c) ----

/// How a method's reply is shaped.
typedef enum {
    SHAPE_NONE,
    SHAPE_OPEN_SESSION,       // vo
    SHAPE_TWO_PATH_LISTS,     // aoao
    SHAPE_ONE_PATH_LIST,      // ao, both lists
    SHAPE_PATHS_AND_PROMPT,   // ao o
    SHAPE_PATH_AND_PROMPT,    // o o
    SHAPE_PROMPT,             // o (list 1)
    SHAPE_PATH,               // o (list 0)
    SHAPE_SECRETS,            // a{o(oayays)}
    SHAPE_SECRET,             // (oayays)
} reply_shape;


/// A request for `operation` with nothing read yet.
clavis_ss_request request_for(clavis_ss_operation operation);

/// InvalidArgs for arguments that could not be read (`result` the negative errno).
int invalid(sd_bus_error *error, int result);

/// Hands `request` (for the object `path`, from the sender of `message`) to the program's handler; 0 with
/// `*answered` the reply, or a negative errno with `error` set.
int call_handler(clavis_secret_service *service, sd_bus_message *message, const char *path,
                 clavis_ss_request *request, clavis_ss_reply **answered, sd_bus_error *error);

/// Appends an `ao` of `list`.
int append_paths(sd_bus_message *message, const string_list *list);

/// Runs `request` for `message` and replies in `shape`, then emits the signals the handler asked for.
int answer(sd_bus_message *message, clavis_secret_service *service, clavis_ss_request *request, reply_shape shape,
           sd_bus_error *error);

/// The description of the object at `path` for the message being answered (asked of the handler once per message
/// and object); NULL with `error` set on failure.
const clavis_ss_reply *describe(clavis_secret_service *service, const char *path, int with_children,
                                sd_bus_error *error);

// ---- Properties (properties.c) ----

int get_children(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
                 void *userdata, sd_bus_error *error);
int get_label(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
              void *userdata, sd_bus_error *error);
int get_locked(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
               void *userdata, sd_bus_error *error);
int get_date(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
             void *userdata, sd_bus_error *error);
int get_attributes(sd_bus *bus, const char *path, const char *interface, const char *property,
                   sd_bus_message *value, void *userdata, sd_bus_error *error);
/// Writing Label or Attributes.
int set_property(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
                 void *userdata, sd_bus_error *error);

// ---- The rest ----

/// An empty reply; NULL when memory runs out.
clavis_ss_reply *reply_new(void);

/// Frees the reply and zeroes the secrets it holds.
void reply_free(clavis_ss_reply *reply);

/// The object vtables and their registration on `service`'s bus; a negative errno on failure.
int register_objects(clavis_secret_service *service);

/// Fills the request's sender and the caller's process, user and pidfd (a copy the call closes, or -1), asked of the
/// bus daemon once per client (callers.c).
void read_caller(clavis_secret_service *service, const char *sender, clavis_ss_request *request);

/// Forgets a client's credentials when it leaves the bus, and every client's when the connection closes.
void forget_caller(clavis_secret_service *service, const char *sender);
void forget_callers(clavis_secret_service *service);

/// Turns a failed reply into the D-Bus error the specification names.
int reply_error(const clavis_ss_reply *reply, sd_bus_error *error);

/// Emits the prompt `path`'s `Completed` with the objects it concerned.
void emit_completed(clavis_secret_service *service, const char *path, int dismissed, const string_list *objects);

/// Emits the outcomes other threads handed over (serving thread only).
void emit_completions(clavis_secret_service *service);

/// Drops a reference; the last one frees the service.
void release(clavis_secret_service *service);

/// Emits the signals the handler asked for: to every listener, or to `sender` alone when the reply says so.
void emit_signals(sd_bus *bus, const clavis_ss_reply *reply, const char *sender);

#endif
