#include "secret_service_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ---- Service ----

static int on_open_session(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_ss_request request = request_for(CLAVIS_SS_OPEN_SESSION);
    char type = 0;
    const char *contents = NULL;
    int result = sd_bus_message_read(message, "s", &request.text);
    if (result >= 0) result = sd_bus_message_peek_type(message, &type, &contents);
    if (result >= 0 && contents != NULL && strcmp(contents, "ay") == 0) {
        const void *input = NULL;
        result = sd_bus_message_enter_container(message, 'v', "ay");
        if (result >= 0) result = sd_bus_message_read_array(message, 'y', &input, &request.input.count);
        if (result >= 0) result = sd_bus_message_exit_container(message);
        request.input.bytes = input;
    } else if (result >= 0) {
        result = sd_bus_message_skip(message, "v");
    }
    if (result < 0) return invalid(error, result);
    return answer(message, userdata, &request, SHAPE_OPEN_SESSION, error);
}

/// Reads a method's arguments into the request (and the storage its arrays borrow); a negative errno when malformed.
typedef int (*argument_reader)(sd_bus_message *message, clavis_ss_request *request, request_storage *storage);

/// Reads the arguments with `read`, then runs the request and replies in `shape` (InvalidArgs when malformed).
static int read_and_answer(sd_bus_message *message, void *userdata, sd_bus_error *error,
                           clavis_ss_operation operation, reply_shape shape, argument_reader read) {
    clavis_ss_request request = request_for(operation);
    request_storage storage = {0};
    int result = read(message, &request, &storage);
    if (result >= 0) result = answer(message, userdata, &request, shape, error);
    else result = invalid(error, result);
    storage_free(&storage);
    return result;
}

/// CreateCollection's `a{sv}s`: the properties, then the alias.
static int read_collection_properties(sd_bus_message *message, clavis_ss_request *request,
                                      request_storage *storage) {
    int result = read_properties(message, COLLECTION_INTERFACE, request, storage);
    return result >= 0 ? sd_bus_message_read(message, "s", &request->text) : result;
}

/// GetSecrets' `aoo`: the items, then the session.
static int read_items_and_session(sd_bus_message *message, clavis_ss_request *request, request_storage *storage) {
    int result = read_objects(message, request, storage);
    return result >= 0 ? sd_bus_message_read(message, "o", &request->object) : result;
}

/// CreateItem's `a{sv}(oayays)b`: the properties, the secret, whether to replace.
static int read_new_item(sd_bus_message *message, clavis_ss_request *request, request_storage *storage) {
    int result = read_properties(message, ITEM_INTERFACE, request, storage);
    if (result >= 0) result = read_secret(message, &request->secret);
    return result >= 0 ? sd_bus_message_read(message, "b", &request->replace) : result;
}

static int on_create_collection(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    return read_and_answer(message, userdata, error, CLAVIS_SS_CREATE_COLLECTION, SHAPE_PATH_AND_PROMPT,
                           read_collection_properties);
}

static int on_service_search_items(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    return read_and_answer(message, userdata, error, CLAVIS_SS_SEARCH_ITEMS, SHAPE_TWO_PATH_LISTS, read_attributes);
}

static int on_collection_search_items(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    return read_and_answer(message, userdata, error, CLAVIS_SS_SEARCH_ITEMS, SHAPE_ONE_PATH_LIST, read_attributes);
}

static int on_unlock(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    return read_and_answer(message, userdata, error, CLAVIS_SS_UNLOCK, SHAPE_PATHS_AND_PROMPT, read_objects);
}

static int on_lock(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    return read_and_answer(message, userdata, error, CLAVIS_SS_LOCK, SHAPE_PATHS_AND_PROMPT, read_objects);
}

static int on_get_secrets(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    return read_and_answer(message, userdata, error, CLAVIS_SS_GET_SECRETS, SHAPE_SECRETS, read_items_and_session);
}

static int on_read_alias(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_ss_request request = request_for(CLAVIS_SS_READ_ALIAS);
    int result = sd_bus_message_read(message, "s", &request.text);
    if (result < 0) return invalid(error, result);
    return answer(message, userdata, &request, SHAPE_PATH, error);
}

static int on_set_alias(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_ss_request request = request_for(CLAVIS_SS_SET_ALIAS);
    int result = sd_bus_message_read(message, "so", &request.text, &request.object);
    if (result < 0) return invalid(error, result);
    return answer(message, userdata, &request, SHAPE_NONE, error);
}

// ---- Collection, Item, Session, Prompt ----

static int on_delete(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_ss_request request = request_for(CLAVIS_SS_DELETE);
    return answer(message, userdata, &request, SHAPE_PROMPT, error);
}

static int on_create_item(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    return read_and_answer(message, userdata, error, CLAVIS_SS_CREATE_ITEM, SHAPE_PATH_AND_PROMPT, read_new_item);
}

static int on_get_secret(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_ss_request request = request_for(CLAVIS_SS_GET_SECRETS);
    const char *item = sd_bus_message_get_path(message);
    request.objects = &item;
    request.object_count = 1;
    request.strict = 1;
    int result = sd_bus_message_read(message, "o", &request.object);
    if (result < 0) return invalid(error, result);
    return answer(message, userdata, &request, SHAPE_SECRET, error);
}

static int on_set_secret(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_ss_request request = request_for(CLAVIS_SS_SET_SECRET);
    int result = read_secret(message, &request.secret);
    if (result < 0) return invalid(error, result);
    return answer(message, userdata, &request, SHAPE_NONE, error);
}

static int on_close_session(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_ss_request request = request_for(CLAVIS_SS_CLOSE_SESSION);
    return answer(message, userdata, &request, SHAPE_NONE, error);
}

void emit_completed(clavis_secret_service *service, const char *path, int dismissed, const string_list *objects) {
    sd_bus_message *signal = NULL;
    int result = sd_bus_message_new_signal(service->bus, &signal, path, PROMPT_INTERFACE, "Completed");
    if (result >= 0) result = sd_bus_message_append(signal, "b", dismissed);
    if (result >= 0) result = sd_bus_message_open_container(signal, 'v', "ao");
    if (result >= 0) result = append_paths(signal, objects);
    if (result >= 0) result = sd_bus_message_close_container(signal);
    if (result >= 0) sd_bus_send(service->bus, signal, NULL);
    sd_bus_message_unref(signal);
}

/// Prompt.Prompt: answered at once, as the specification has it (a client may not wait on a method call for as
/// long as a user takes), then the handler runs the prompt, and `Completed` tells the outcome; a prompt that fails
/// completes as dismissed.
static int on_prompt(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_secret_service *service = userdata;
    clavis_ss_request request = request_for(CLAVIS_SS_PROMPT);
    int result = sd_bus_message_read(message, "s", &request.text);
    if (result < 0) return invalid(error, result);
    const char *path = sd_bus_message_get_path(message);
    result = sd_bus_reply_method_return(message, "");
    if (result < 0) return result;
    sd_bus_flush(service->bus);
    clavis_ss_reply *reply = NULL;
    sd_bus_error failure = SD_BUS_ERROR_NULL;
    if (call_handler(service, message, path, &request, &reply, &failure) < 0) {
        string_list none = {0};
        emit_completed(service, path, 1, &none);
    } else {
        // A deferred prompt completes when the thread asking the user hands its outcome over.
        if (!reply->deferred) emit_completed(service, path, reply->dismissed, &reply->paths[0]);
        emit_signals(service->bus, reply, sd_bus_message_get_sender(message));
        reply_free(reply);
    }
    sd_bus_error_free(&failure);
    return 1;
}

static int on_dismiss(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    clavis_secret_service *service = userdata;
    clavis_ss_request request = request_for(CLAVIS_SS_DISMISS);
    const char *path = sd_bus_message_get_path(message);
    clavis_ss_reply *reply = NULL;
    int result = call_handler(service, message, path, &request, &reply, error);
    if (result < 0) return result;
    result = sd_bus_reply_method_return(message, "");
    string_list none = {0};
    emit_completed(service, path, 1, &none);
    reply_free(reply);
    return result < 0 ? result : 1;
}

// ---- Vtables ----
// Not const: each is pointed at the loaded libsystemd's vtable format before it is registered (`point_vtables`).

static sd_bus_vtable service_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("OpenSession", "sv", "vo", on_open_session, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("CreateCollection", "a{sv}s", "oo", on_create_collection, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("SearchItems", "a{ss}", "aoao", on_service_search_items, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Unlock", "ao", "aoo", on_unlock, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Lock", "ao", "aoo", on_lock, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetSecrets", "aoo", "a{o(oayays)}", on_get_secrets, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReadAlias", "s", "o", on_read_alias, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("SetAlias", "so", "", on_set_alias, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Collections", "ao", get_children, 0, 0),
    SD_BUS_SIGNAL("CollectionCreated", "o", 0),
    SD_BUS_SIGNAL("CollectionDeleted", "o", 0),
    SD_BUS_SIGNAL("CollectionChanged", "o", 0),
    SD_BUS_VTABLE_END,
};

static sd_bus_vtable collection_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Delete", "", "o", on_delete, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("SearchItems", "a{ss}", "ao", on_collection_search_items, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("CreateItem", "a{sv}(oayays)b", "oo", on_create_item, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Items", "ao", get_children, 0, 0),
    SD_BUS_WRITABLE_PROPERTY("Label", "s", get_label, set_property, 0, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Locked", "b", get_locked, 0, 0),
    SD_BUS_PROPERTY("Created", "t", get_date, 0, 0),
    SD_BUS_PROPERTY("Modified", "t", get_date, 0, 0),
    SD_BUS_SIGNAL("ItemCreated", "o", 0),
    SD_BUS_SIGNAL("ItemDeleted", "o", 0),
    SD_BUS_SIGNAL("ItemChanged", "o", 0),
    SD_BUS_VTABLE_END,
};

static sd_bus_vtable item_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Delete", "", "o", on_delete, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetSecret", "o", "(oayays)", on_get_secret, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("SetSecret", "(oayays)", "", on_set_secret, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Locked", "b", get_locked, 0, 0),
    SD_BUS_WRITABLE_PROPERTY("Attributes", "a{ss}", get_attributes, set_property, 0, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("Label", "s", get_label, set_property, 0, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Created", "t", get_date, 0, 0),
    SD_BUS_PROPERTY("Modified", "t", get_date, 0, 0),
    SD_BUS_VTABLE_END,
};

static sd_bus_vtable session_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Close", "", "", on_close_session, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

static sd_bus_vtable prompt_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Prompt", "s", "", on_prompt, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Dismiss", "", "", on_dismiss, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL("Completed", "bv", 0),
    SD_BUS_VTABLE_END,
};

// ---- Which paths hold which objects ----

/// The number of path elements of `path` below `prefix` (which ends in '/'), or -1 when it is not below it or an
/// element is empty.
static int depth_below(const char *path, const char *prefix) {
    size_t length = strlen(prefix);
    if (strncmp(path, prefix, length) != 0 || path[length] == '\0') return -1;
    int depth = 1;
    for (const char *cursor = path + length; *cursor != '\0'; cursor++) {
        if (*cursor == '/') {
            if (cursor[1] == '\0' || cursor[1] == '/') return -1;
            depth++;
        }
    }
    return depth;
}

/// Answers for every well-formed path of its kind; whether the object exists is the handler's to say.
static int found(void *userdata, void **ret_found, int yes) {
    if (yes) *ret_found = userdata;
    return yes;
}

static int find_collection(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                           sd_bus_error *error) {
    (void)bus, (void)interface, (void)error;
    return found(userdata, ret_found,
                 depth_below(path, SECRETS_ROOT "/collection/") == 1 ||
                     depth_below(path, SECRETS_ROOT "/aliases/") == 1);
}

static int find_item(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                     sd_bus_error *error) {
    (void)bus, (void)interface, (void)error;
    return found(userdata, ret_found, depth_below(path, SECRETS_ROOT "/collection/") == 2);
}

static int find_session(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                        sd_bus_error *error) {
    (void)bus, (void)interface, (void)error;
    return found(userdata, ret_found, depth_below(path, SECRETS_ROOT "/session/") == 1);
}

static int find_prompt(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                       sd_bus_error *error) {
    (void)bus, (void)interface, (void)error;
    return found(userdata, ret_found, depth_below(path, SECRETS_ROOT "/prompt/") == 1);
}

/// True for a path one of the provider's objects could have: the service, a collection or alias, an item, a session
/// or a prompt (whether it exists is the handler's to say).
static int served_path(const char *path) {
    return strcmp(path, SECRETS_ROOT) == 0 || depth_below(path, SECRETS_ROOT "/collection/") == 1 ||
           depth_below(path, SECRETS_ROOT "/collection/") == 2 || depth_below(path, SECRETS_ROOT "/aliases/") == 1 ||
           depth_below(path, SECRETS_ROOT "/session/") == 1 || depth_below(path, SECRETS_ROOT "/prompt/") == 1;
}

/// Calls on any other path (not introspection, which walks the tree's inner nodes) are answered as gnome-keyring
/// answers a call on an object it does not have, `UnknownMethod` ("Object does not exist at path ..."), rather than
/// sd-bus's `UnknownObject`, which older clients (secretstorage 3.3) do not take for "not found".
static int on_unserved_path(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)userdata, (void)error;
    const char *path = sd_bus_message_get_path(message);
    const char *interface = sd_bus_message_get_interface(message);
    if (path == NULL || served_path(path)) return 0;
    if (interface != NULL && (strcmp(interface, "org.freedesktop.DBus.Introspectable") == 0 ||
                              strcmp(interface, "org.freedesktop.DBus.Peer") == 0)) {
        return 0;
    }
    return sd_bus_reply_method_errorf(message, SD_BUS_ERROR_UNKNOWN_METHOD,
                                      "Object does not exist at path \u201c%s\u201d", path);
}

/// Appends a copy of each of `paths` to the NULL-terminated `*nodes` (of `*count`); -ENOMEM on failure.
static int append_nodes(char ***nodes, size_t *count, const string_list *paths) {
    char **grown = realloc(*nodes, (*count + paths->count + 1) * sizeof *grown);
    if (grown == NULL) return -ENOMEM;
    *nodes = grown;
    for (size_t index = 0; index < paths->count; index++) {
        char *copy = strdup(paths->items[index]);
        if (copy == NULL) return -ENOMEM;
        grown[(*count)++] = copy;
        grown[*count] = NULL;
    }
    grown[*count] = NULL;
    return 0;
}

/// The collections the caller sees and their items, for introspection (`busctl tree`).
static int enumerate_objects(sd_bus *bus, const char *prefix, void *userdata, char ***nodes, sd_bus_error *error) {
    (void)bus, (void)prefix;
    char **list = NULL;
    size_t count = 0;
    const clavis_ss_reply *reply = describe(userdata, SECRETS_ROOT, 1, error);
    int result = reply == NULL ? -sd_bus_error_get_errno(error) : append_nodes(&list, &count, &reply->paths[0]);
    // Each description replaces the last one: the collections are read from the copies made above.
    size_t collections = count;
    for (size_t index = 0; result >= 0 && index < collections; index++) {
        sd_bus_error ignored = SD_BUS_ERROR_NULL;
        const clavis_ss_reply *collection = describe(userdata, list[index], 1, &ignored);
        if (collection != NULL) result = append_nodes(&list, &count, &collection->paths[0]);
        sd_bus_error_free(&ignored);
    }
    if (result < 0) {
        for (size_t index = 0; index < count; index++) free(list[index]);
        free(list);
        return result;
    }
    *nodes = list;
    return 0;
}

static pthread_once_t vtables_pointed = PTHREAD_ONCE_INIT;

/// Points every vtable at the loaded libsystemd's format, once per process.
static void point_vtables(void) {
    sd_bus_vtable *vtables[] = {service_vtable, collection_vtable, item_vtable, session_vtable, prompt_vtable};
    for (size_t index = 0; index < sizeof vtables / sizeof vtables[0]; index++) {
        clavis_systemd_point_vtable(vtables[index]);
    }
}

int register_objects(clavis_secret_service *service) {
    pthread_once(&vtables_pointed, point_vtables);
    sd_bus *bus = service->bus;
    sd_bus_slot **slots = service->slots;
    int result = sd_bus_add_object_vtable(bus, &slots[0], SECRETS_ROOT, SERVICE_INTERFACE, service_vtable, service);
    if (result >= 0) {
        result = sd_bus_add_fallback_vtable(bus, &slots[1], SECRETS_ROOT "/collection", COLLECTION_INTERFACE,
                                            collection_vtable, find_collection, service);
    }
    if (result >= 0) {
        result = sd_bus_add_fallback_vtable(bus, &slots[2], SECRETS_ROOT "/collection", ITEM_INTERFACE, item_vtable,
                                            find_item, service);
    }
    if (result >= 0) {
        result = sd_bus_add_fallback_vtable(bus, &slots[3], SECRETS_ROOT "/aliases", COLLECTION_INTERFACE,
                                            collection_vtable, find_collection, service);
    }
    if (result >= 0) {
        result = sd_bus_add_fallback_vtable(bus, &slots[4], SECRETS_ROOT "/session", SESSION_INTERFACE,
                                            session_vtable, find_session, service);
    }
    if (result >= 0) {
        result = sd_bus_add_fallback_vtable(bus, &slots[5], SECRETS_ROOT "/prompt", PROMPT_INTERFACE, prompt_vtable,
                                            find_prompt, service);
    }
    if (result >= 0) {
        result = sd_bus_add_node_enumerator(bus, &slots[6], SECRETS_ROOT "/collection", enumerate_objects,
                                            service);
    }
    if (result >= 0) result = sd_bus_add_fallback(bus, &slots[7], "/", on_unserved_path, service);
    return result;
}
