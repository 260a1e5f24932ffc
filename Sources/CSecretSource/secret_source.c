#include "CSecretSource.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CSystemdLibrary.h"

#define SECRETS "org.freedesktop.secrets"
#define SECRETS_PATH "/org/freedesktop/secrets"
#define SERVICE_INTERFACE "org.freedesktop.Secret.Service"
#define COLLECTION_INTERFACE "org.freedesktop.Secret.Collection"
#define ITEM_INTERFACE "org.freedesktop.Secret.Item"
#define PROMPT_INTERFACE "org.freedesktop.Secret.Prompt"

struct clavis_secret_source {
    sd_bus *bus;
    char *session;
};

/// Writes a one-line reason: `what`, then the bus error's own text when there is one.
static int fail(char *message, size_t size, int result, const sd_bus_error *error, const char *format, ...) {
    if (message != NULL && size > 0) {
        va_list arguments;
        va_start(arguments, format);
        int written = vsnprintf(message, size, format, arguments);
        va_end(arguments);
        if (written >= 0 && (size_t)written < size && error != NULL && sd_bus_error_is_set(error)) {
            snprintf(message + written, size - (size_t)written, ": %s",
                     error->message != NULL ? error->message : error->name);
        }
    }
    return result < 0 ? result : -EIO;
}

clavis_secret_source *clavis_secret_source_open(uint32_t *owner_pid, int *error, char *message, size_t message_size) {
    if (clavis_systemd() == NULL) {
        *error = fail(message, message_size, -ENOSYS, NULL, "cannot load libsystemd, which speaks D-Bus");
        return NULL;
    }
    clavis_secret_source *source = calloc(1, sizeof *source);
    if (source == NULL) {
        *error = fail(message, message_size, -ENOMEM, NULL, "out of memory");
        return NULL;
    }
    sd_bus_error bus_error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    sd_bus_creds *creds = NULL;
    int result = sd_bus_open_user(&source->bus);
    if (result < 0) {
        *error = fail(message, message_size, result, NULL, "cannot reach the session bus: %s", strerror(-result));
        goto failed;
    }
    // The call starts an activatable provider; only then has the name an owner to ask about.
    result = sd_bus_call_method(source->bus, SECRETS, SECRETS_PATH, SERVICE_INTERFACE, "OpenSession", &bus_error,
                                &reply, "sv", "plain", "s", "");
    if (result < 0) {
        *error = fail(message, message_size, result, &bus_error, "no Secret Service answers on the session bus");
        goto failed;
    }
    const char *session = NULL;
    if ((result = sd_bus_message_skip(reply, "v")) < 0 || (result = sd_bus_message_read(reply, "o", &session)) < 0 ||
        (source->session = strdup(session)) == NULL) {
        *error = fail(message, message_size, result < 0 ? result : -ENOMEM, NULL,
                      "the Secret Service answered OpenSession with something else than a session");
        goto failed;
    }
    result = sd_bus_get_name_creds(source->bus, SECRETS, SD_BUS_CREDS_PID, &creds);
    pid_t pid = 0;
    if (result < 0 || (result = sd_bus_creds_get_pid(creds, &pid)) < 0) {
        *error = fail(message, message_size, result, NULL, "cannot learn which process provides the Secret Service");
        goto failed;
    }
    *owner_pid = (uint32_t)pid;
    sd_bus_creds_unref(creds);
    sd_bus_message_unref(reply);
    return source;

failed:
    sd_bus_creds_unref(creds);
    sd_bus_message_unref(reply);
    sd_bus_error_free(&bus_error);
    clavis_secret_source_close(source);
    return NULL;
}

/// What a prompt's `Completed` signal said.
typedef struct {
    int completed;
    int dismissed;
} prompt_outcome;

static int on_prompt_completed(sd_bus_message *message, void *userdata, sd_bus_error *ignored) {
    (void)ignored;
    prompt_outcome *outcome = userdata;
    int dismissed = 1;
    if (sd_bus_message_read(message, "b", &dismissed) < 0) dismissed = 1;
    outcome->dismissed = dismissed;
    outcome->completed = 1;
    return 0;
}

/// Asks the provider to unlock `collection`, running its prompt and waiting for its answer; 1 when unlocked, 0 when
/// it stays locked, a negative errno when the bus fails.
static int unlock(clavis_secret_source *source, const char *collection) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *request = NULL, *reply = NULL;
    sd_bus_slot *slot = NULL;
    int result = sd_bus_message_new_method_call(source->bus, &request, SECRETS, SECRETS_PATH, SERVICE_INTERFACE,
                                                "Unlock");
    if (result >= 0) result = sd_bus_message_append(request, "ao", 1, collection);
    if (result >= 0) result = sd_bus_call(source->bus, request, 0, &error, &reply);
    if (result < 0) goto done;
    char **unlocked = NULL;
    const char *prompt = NULL;
    if ((result = sd_bus_message_read_strv(reply, &unlocked)) < 0) goto done;
    int already = unlocked != NULL && unlocked[0] != NULL;
    for (char **path = unlocked; path != NULL && *path != NULL; path++) free(*path);
    free(unlocked);
    if ((result = sd_bus_message_read(reply, "o", &prompt)) < 0) goto done;
    if (already || strcmp(prompt, "/") == 0) {
        result = already;
        goto done;
    }
    prompt_outcome outcome = {0, 0};
    result = sd_bus_match_signal(source->bus, &slot, SECRETS, prompt, PROMPT_INTERFACE, "Completed",
                                 on_prompt_completed, &outcome);
    if (result < 0) goto done;
    sd_bus_message_unref(reply);
    reply = NULL;
    result = sd_bus_call_method(source->bus, SECRETS, prompt, PROMPT_INTERFACE, "Prompt", &error, &reply, "s", "");
    while (result >= 0 && !outcome.completed) {
        result = sd_bus_process(source->bus, NULL);
        if (result == 0) {
            result = sd_bus_wait(source->bus, UINT64_MAX);
            if (result == -EINTR) result = 0;
        }
    }
    if (result >= 0) result = outcome.completed && !outcome.dismissed;

done:
    sd_bus_slot_unref(slot);
    sd_bus_message_unref(request);
    sd_bus_message_unref(reply);
    sd_bus_error_free(&error);
    return result;
}

/// An `ao` property of `path`, as a NULL-terminated list the caller frees with `free_paths`.
static int path_list(sd_bus *bus, const char *path, const char *interface, const char *name, char ***paths) {
    sd_bus_message *reply = NULL;
    int result = sd_bus_get_property(bus, SECRETS, path, interface, name, NULL, &reply, "ao");
    if (result >= 0) result = sd_bus_message_read_strv(reply, paths);
    sd_bus_message_unref(reply);
    return result < 0 ? result : 0;
}

static void free_paths(char **paths) {
    for (char **path = paths; path != NULL && *path != NULL; path++) free(*path);
    free(paths);
}

static size_t count_paths(char **paths) {
    size_t count = 0;
    while (paths != NULL && paths[count] != NULL) count++;
    return count;
}

/// Reads one item (its secret in the plain session, its label and attributes) and hands it to the visitor.
static int visit_item(clavis_secret_source *source, clavis_secret_source_item *item,
                      clavis_secret_source_visitor visitor, void *context, char *message, size_t message_size) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *secret_reply = NULL, *attributes_reply = NULL;
    char *label = NULL;
    const char **names = NULL, **values = NULL;
    const void *secret = NULL;
    size_t secret_size = 0;
    int result = sd_bus_call_method(source->bus, SECRETS, item->item_path, ITEM_INTERFACE, "GetSecret", &error,
                                    &secret_reply, "o", source->session);
    if (result < 0) {
        result = fail(message, message_size, result, &error, "cannot read the secret of %s", item->item_path);
        goto done;
    }
    const char *session = NULL, *content_type = NULL;
    const void *parameters = NULL;
    size_t parameters_size = 0;
    if ((result = sd_bus_message_enter_container(secret_reply, 'r', "oayays")) < 0 ||
        (result = sd_bus_message_read(secret_reply, "o", &session)) < 0 ||
        (result = sd_bus_message_read_array(secret_reply, 'y', &parameters, &parameters_size)) < 0 ||
        (result = sd_bus_message_read_array(secret_reply, 'y', &secret, &secret_size)) < 0 ||
        (result = sd_bus_message_read(secret_reply, "s", &content_type)) < 0) {
        result = fail(message, message_size, result, NULL, "the secret of %s is malformed", item->item_path);
        goto done;
    }
    if ((result = sd_bus_get_property_string(source->bus, SECRETS, item->item_path, ITEM_INTERFACE, "Label", &error,
                                             &label)) < 0 ||
        (result = sd_bus_get_property(source->bus, SECRETS, item->item_path, ITEM_INTERFACE, "Attributes", &error,
                                      &attributes_reply, "a{ss}")) < 0) {
        result = fail(message, message_size, result, &error, "cannot read the properties of %s", item->item_path);
        goto done;
    }
    size_t count = 0, capacity = 0;
    if ((result = sd_bus_message_enter_container(attributes_reply, 'a', "{ss}")) < 0) goto malformed;
    for (;;) {
        const char *name = NULL, *value = NULL;
        result = sd_bus_message_read(attributes_reply, "{ss}", &name, &value);
        if (result < 0) goto malformed;
        if (result == 0) break;
        if (count == capacity) {
            capacity = capacity == 0 ? 8 : capacity * 2;
            const char **grown_names = realloc(names, capacity * sizeof *names);
            if (grown_names != NULL) names = grown_names;
            const char **grown_values = realloc(values, capacity * sizeof *values);
            if (grown_values != NULL) values = grown_values;
            if (grown_names == NULL || grown_values == NULL) {
                result = fail(message, message_size, -ENOMEM, NULL, "out of memory");
                goto done;
            }
        }
        names[count] = name;
        values[count] = value;
        count++;
    }
    item->label = label;
    item->attribute_names = names;
    item->attribute_values = values;
    item->attribute_count = count;
    item->secret = secret;
    item->secret_size = secret_size;
    item->content_type = content_type;
    result = visitor(context, item);
    goto done;

malformed:
    result = fail(message, message_size, result, NULL, "the attributes of %s are malformed", item->item_path);
done:
    // The secret was read in place from the reply's buffer: it is wiped before the buffer goes back to the heap.
    if (secret != NULL && secret_size > 0) explicit_bzero((void *)secret, secret_size);
    free(label);
    free(names);
    free(values);
    sd_bus_message_unref(secret_reply);
    sd_bus_message_unref(attributes_reply);
    sd_bus_error_free(&error);
    return result;
}

int clavis_secret_source_visit(clavis_secret_source *source, clavis_secret_source_visitor visitor,
                               clavis_secret_source_locked_handler locked, void *context, char *message,
                               size_t message_size) {
    char **collections = NULL;
    int result = path_list(source->bus, SECRETS_PATH, SERVICE_INTERFACE, "Collections", &collections);
    if (result < 0) return fail(message, message_size, result, NULL, "cannot list the provider's collections");
    for (char **collection = collections; result >= 0 && collection != NULL && *collection != NULL; collection++) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *label = NULL, **items = NULL;
        int is_locked = 0;
        result = sd_bus_get_property_string(source->bus, SECRETS, *collection, COLLECTION_INTERFACE, "Label", &error,
                                            &label);
        if (result >= 0) {
            result = sd_bus_get_property_trivial(source->bus, SECRETS, *collection, COLLECTION_INTERFACE, "Locked",
                                                 &error, 'b', &is_locked);
        }
        if (result >= 0 && is_locked) {
            result = unlock(source, *collection);
            if (result >= 0) is_locked = !result;
        }
        if (result >= 0) result = path_list(source->bus, *collection, COLLECTION_INTERFACE, "Items", &items);
        if (result < 0) {
            result = fail(message, message_size, result, &error, "cannot read the collection %s", *collection);
        } else if (is_locked) {
            if (locked != NULL) locked(context, *collection, label, count_paths(items));
        } else {
            for (char **path = items; result == 0 && path != NULL && *path != NULL; path++) {
                clavis_secret_source_item item = {
                    .collection_path = *collection, .collection_label = label, .item_path = *path};
                result = visit_item(source, &item, visitor, context, message, message_size);
            }
        }
        free(label);
        free_paths(items);
        sd_bus_error_free(&error);
    }
    free_paths(collections);
    return result;
}

void clavis_secret_source_close(clavis_secret_source *source) {
    if (source == NULL) return;
    if (source->session != NULL && source->bus != NULL) {
        sd_bus_call_method(source->bus, SECRETS, source->session, "org.freedesktop.Secret.Session", "Close", NULL,
                           NULL, "");
    }
    free(source->session);
    sd_bus_flush_close_unref(source->bus);
    free(source);
}
