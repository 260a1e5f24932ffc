#ifndef CLAVIS_SECRET_SERVICE_H
#define CLAVIS_SECRET_SERVICE_H

#include <stddef.h>
#include <stdint.h>

/// The freedesktop Secret Service (`org.freedesktop.secrets`) on the session bus, through sd-bus.
///
/// This layer knows D-Bus: object paths and their interfaces, method and property signatures, marshalling, signals,
/// the callers' credentials. It knows nothing of keychains: each method call and property access becomes one
/// `clavis_ss_request` handed to the one handler the program gives (`clavis_secret_service_run`), which answers
/// through the `clavis_ss_reply_*` functions while it runs. Requests, replies and every string in them live only for
/// the handler's call; the reply copies what it is given.
typedef struct clavis_secret_service clavis_secret_service;

/// What a request asks. The fields of `clavis_ss_request` each operation reads are listed beside it; "paths 0" and
/// "paths 1" are the reply's two path lists (`clavis_ss_reply_add_path`).
typedef enum {
    /// Service.OpenSession: `text` the algorithm, `input` the client's DH public key (absent for `plain`). Reply:
    /// the session in paths 0, the server's public key with `clavis_ss_reply_set_bytes` (for DH).
    CLAVIS_SS_OPEN_SESSION,
    /// Session.Close on `path`.
    CLAVIS_SS_CLOSE_SESSION,
    /// Service.SearchItems (`path` is the service) or Collection.SearchItems: `attributes`. Reply: unlocked items in
    /// paths 0, locked ones in paths 1 (a collection's search answers both in one list).
    CLAVIS_SS_SEARCH_ITEMS,
    /// Service.Unlock: `objects`. Reply: the objects already unlocked in paths 0, a prompt in paths 1 (or none).
    CLAVIS_SS_UNLOCK,
    /// Service.Lock: `objects`. Reply: the objects locked in paths 0, a prompt in paths 1 (or none).
    CLAVIS_SS_LOCK,
    /// Service.GetSecrets (`strict` 0) or Item.GetSecret (`path` the item, `strict` 1): `objects` the items, `object`
    /// the session. Reply: one `clavis_ss_reply_add_secret` per item (exactly one when strict).
    CLAVIS_SS_GET_SECRETS,
    /// Service.ReadAlias: `text` the alias. Reply: the collection in paths 0, or nothing for none.
    CLAVIS_SS_READ_ALIAS,
    /// Service.SetAlias: `text` the alias, `object` the collection ("/" removes the alias).
    CLAVIS_SS_SET_ALIAS,
    /// Service.CreateCollection: `label` (with `has_label`), `text` the alias ("" for none). Reply: the collection
    /// in paths 0, a prompt in paths 1 (or none).
    CLAVIS_SS_CREATE_COLLECTION,
    /// Collection.Delete or Item.Delete on `path`. Reply: a prompt in paths 1 (or none).
    CLAVIS_SS_DELETE,
    /// Collection.CreateItem on `path`: `label`/`has_label`, `attributes`/`has_attributes`, `secret`, `replace`.
    /// Reply: the item in paths 0, a prompt in paths 1 (or none).
    CLAVIS_SS_CREATE_ITEM,
    /// Item.SetSecret on `path`: `secret`.
    CLAVIS_SS_SET_SECRET,
    /// A property read of the object at `path` (the service, a collection, an alias or an item). Reply: its
    /// children (the service's collections, a collection's items) in paths 0 when `with_children`,
    /// `clavis_ss_reply_describe` and `clavis_ss_reply_add_attribute` for the rest.
    CLAVIS_SS_DESCRIBE,
    /// Writing Label (`label`) or Attributes (`attributes`) of the collection or item at `path`.
    CLAVIS_SS_SET_PROPERTIES,
    /// Prompt.Prompt on `path`: `text` the window id. Runs the prompt (the reply has gone before it is asked);
    /// reply: `clavis_ss_reply_set_dismissed`, the result objects in paths 0. The layer then emits `Completed`.
    CLAVIS_SS_PROMPT,
    /// Prompt.Dismiss on `path`.
    CLAVIS_SS_DISMISS,
    /// The client `sender` left the bus: its sessions and prompts end. No reply.
    CLAVIS_SS_CLIENT_GONE,
} clavis_ss_operation;

/// The errors of the specification, and D-Bus's own for bad input and refusals.
typedef enum {
    CLAVIS_SS_ERROR_FAILED,
    /// The object the call was made on does not exist: answered `UnknownMethod`, as gnome-keyring answers it.
    CLAVIS_SS_ERROR_NO_SUCH_OBJECT,
    CLAVIS_SS_ERROR_IS_LOCKED,
    CLAVIS_SS_ERROR_NO_SESSION,
    CLAVIS_SS_ERROR_INVALID_ARGS,
    CLAVIS_SS_ERROR_NOT_SUPPORTED,
    CLAVIS_SS_ERROR_ACCESS_DENIED,
} clavis_ss_error;

/// Bytes borrowed for the length of a call; `bytes` may be NULL when `count` is 0.
typedef struct {
    const uint8_t *bytes;
    size_t count;
} clavis_ss_bytes;

/// A secret as the specification carries it, `(oayays)`: its session, the session's parameters (an IV), the value
/// (encrypted by the session) and its content type.
typedef struct {
    const char *session;
    clavis_ss_bytes parameters;
    clavis_ss_bytes value;
    const char *content_type;
} clavis_ss_secret;

/// One request, its fields borrowed for the handler's call.
typedef struct {
    clavis_ss_operation operation;
    /// The object called.
    const char *path;
    /// The caller's unique bus name.
    const char *sender;
    /// The caller's process and user, as the bus daemon knows them (`GetConnectionCredentials`).
    int32_t pid;
    uint32_t uid;
    /// The caller's process pinned (`ProcessFD` when the bus daemon gives one), or -1; the layer closes it.
    int pidfd;
    const char *text;
    const char *object;
    const char *const *objects;
    size_t object_count;
    const char *const *attribute_names;
    const char *const *attribute_values;
    size_t attribute_count;
    int has_attributes;
    const char *label;
    int has_label;
    clavis_ss_bytes input;
    clavis_ss_secret secret;
    int replace;
    int strict;
    /// CLAVIS_SS_DESCRIBE: 1 when the object's children are wanted (the Collections or Items property, the object
    /// tree); listing a collection's items reads every one of them, which reading its Label must not cost.
    int with_children;
} clavis_ss_request;

/// What the handler answers, filled through the functions below.
typedef struct clavis_ss_reply clavis_ss_reply;

/// The program's one entry point: answers `request` through `reply`.
typedef void (*clavis_ss_handler)(void *context, const clavis_ss_request *request, clavis_ss_reply *reply);

/// Fails the call with `error` and `message` (never a secret: it goes to the caller).
void clavis_ss_reply_fail(clavis_ss_reply *reply, clavis_ss_error error, const char *message);

/// Appends `path` to the reply's path list `list` (0 or 1).
void clavis_ss_reply_add_path(clavis_ss_reply *reply, int list, const char *path);

/// Sets the reply's bytes (OpenSession's output).
void clavis_ss_reply_set_bytes(clavis_ss_reply *reply, const uint8_t *bytes, size_t count);

/// Appends a secret for `item` (GetSecrets, GetSecret).
void clavis_ss_reply_add_secret(clavis_ss_reply *reply, const char *item, const clavis_ss_secret *secret);

/// Describes the object asked about (CLAVIS_SS_DESCRIBE).
void clavis_ss_reply_describe(clavis_ss_reply *reply, const char *label, int locked, uint64_t created,
                              uint64_t modified);

/// Marks the described item as sealed by the lock (CLAVIS_SS_DESCRIBE): its `Locked` and (empty) `Label` are read as
/// described, and reading its Attributes, Created or Modified answers `IsLocked`, except through GetAll, which
/// answers them empty (libsecret loads an item with one GetAll before it unlocks it).
void clavis_ss_reply_seal_details(clavis_ss_reply *reply);

/// Appends one of an item's attributes (CLAVIS_SS_DESCRIBE).
void clavis_ss_reply_add_attribute(clavis_ss_reply *reply, const char *name, const char *value);

/// Sets whether the prompt was dismissed (CLAVIS_SS_PROMPT).
void clavis_ss_reply_set_dismissed(clavis_ss_reply *reply, int dismissed);

/// Emits, once the call is answered, the signal `member` (`CollectionCreated`, `CollectionDeleted`,
/// `CollectionChanged` on the service; `ItemCreated`, `ItemDeleted`, `ItemChanged` on the collection `path`) naming
/// `object`.
void clavis_ss_reply_emit(clavis_ss_reply *reply, const char *path, const char *member, const char *object);

/// Answers the prompt later (CLAVIS_SS_PROMPT): the handler has handed the asking to another thread, which ends it
/// with `clavis_secret_service_complete`, so that the bus serves other calls while the user answers.
void clavis_ss_reply_defer(clavis_ss_reply *reply);

/// Sends the reply's signals to the caller alone rather than to every listener: the change concerns items that only
/// the caller's program may know of.
void clavis_ss_reply_set_signals_private(clavis_ss_reply *reply, int is_private);

/// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`), serves the Secret Service's objects and asks for the
/// name `org.freedesktop.secrets` without taking it from an owner. Returns NULL with `*error` a negative errno when
/// the bus cannot be reached; `*owns_name` is 1 when the name is this connection's, 0 when another program has it
/// (the objects are served on the connection's unique name all the same).
clavis_secret_service *clavis_secret_service_open(int *error, int *owns_name);

/// Serves calls, handing each to `handler`, until the bus connection fails; returns that negative errno.
int clavis_secret_service_run(clavis_secret_service *service, clavis_ss_handler handler, void *context);

/// Keeps `service` for a thread that will complete a deferred prompt; `clavis_secret_service_complete` releases it.
void clavis_secret_service_retain(clavis_secret_service *service);

/// From any thread: completes the deferred prompt at `path` (its `Completed` signal, `dismissed` and the `objects`
/// it concerned, sent by the serving thread), then releases the reference `clavis_secret_service_retain` took.
void clavis_secret_service_complete(clavis_secret_service *service, const char *path, int dismissed,
                                    const char *const *objects, size_t count);

/// Closes the connection; the memory goes once no deferred prompt holds it.
void clavis_secret_service_close(clavis_secret_service *service);

#endif
