#ifndef CLAVIS_SECRET_SOURCE_H
#define CLAVIS_SECRET_SOURCE_H

#include <stddef.h>
#include <stdint.h>

/// Another freedesktop Secret Service provider on the session bus (gnome-keyring, KeePassXC), read item by item so
/// that `clavis import-secret-service` can copy its items. Secrets travel in a `plain` session: on the local bus, as
/// `secret-tool` itself may ask.
typedef struct clavis_secret_source clavis_secret_source;

/// One item of the source, valid during the visitor's call only.
typedef struct {
    /// The collection's object path and label (its `Label` property).
    const char *collection_path;
    const char *collection_label;
    /// The item's object path and label.
    const char *item_path;
    const char *label;
    /// The item's attributes, `attribute_count` names and values.
    const char *const *attribute_names;
    const char *const *attribute_values;
    size_t attribute_count;
    /// The secret and its content type (`text/plain`, ...).
    const uint8_t *secret;
    size_t secret_size;
    const char *content_type;
} clavis_secret_source_item;

/// Called for each item; a non-zero return stops the visit, which then returns that value.
typedef int (*clavis_secret_source_visitor)(void *context, const clavis_secret_source_item *item);

/// Called for each collection that stays locked (the user dismissed the provider's unlock prompt, or it has none),
/// whose `item_count` items are not visited.
typedef void (*clavis_secret_source_locked_handler)(void *context, const char *collection_path, const char *label,
                                                    size_t item_count);

/// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`) and opens a `plain` session with the owner of
/// `org.freedesktop.secrets`, whose process id is stored in `*owner_pid`. Returns NULL with a negative errno in
/// `*error` and a one-line reason in `message` when there is no bus, no provider or it refuses the session.
clavis_secret_source *clavis_secret_source_open(uint32_t *owner_pid, int *error, char *message, size_t message_size);

/// Visits every item of every collection, asking the provider to unlock a locked collection first (its own prompt,
/// whose answer is awaited); returns 0, a visitor's non-zero value, or a negative errno with `message` set.
int clavis_secret_source_visit(clavis_secret_source *source, clavis_secret_source_visitor visitor,
                               clavis_secret_source_locked_handler locked, void *context, char *message,
                               size_t message_size);

/// Closes the session and the connection.
void clavis_secret_source_close(clavis_secret_source *source);

#endif
