/// Reading the arguments of the Secret Service's methods into a request.
#include "secret_service_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void storage_free(request_storage *storage) {
    free(storage->names);
    free(storage->values);
    if (storage->objects != NULL) {
        for (char **object = storage->objects; *object != NULL; object++) free(*object);
        free(storage->objects);
    }
}

/// Reads an `a{ss}` into the request's attributes (the strings stay in the message).
int read_attributes(sd_bus_message *message, clavis_ss_request *request, request_storage *storage) {
    int result = sd_bus_message_enter_container(message, 'a', "{ss}");
    if (result < 0) return result;
    size_t capacity = 0;
    request->attribute_count = 0;
    request->has_attributes = 1;
    while ((result = sd_bus_message_enter_container(message, 'e', "ss")) > 0) {
        const char *name = NULL;
        const char *value = NULL;
        result = sd_bus_message_read(message, "ss", &name, &value);
        if (result < 0) return result;
        if (request->attribute_count == capacity) {
            capacity = capacity == 0 ? 8 : capacity * 2;
            const char **names = realloc(storage->names, capacity * sizeof *names);
            if (names == NULL) return -ENOMEM;
            storage->names = names;
            const char **values = realloc(storage->values, capacity * sizeof *values);
            if (values == NULL) return -ENOMEM;
            storage->values = values;
        }
        storage->names[request->attribute_count] = name;
        storage->values[request->attribute_count] = value;
        request->attribute_count++;
        result = sd_bus_message_exit_container(message);
        if (result < 0) return result;
    }
    if (result < 0) return result;
    request->attribute_names = storage->names;
    request->attribute_values = storage->values;
    return sd_bus_message_exit_container(message);
}

/// Reads an `ao` into the request's objects.
int read_objects(sd_bus_message *message, clavis_ss_request *request, request_storage *storage) {
    int result = sd_bus_message_read_strv(message, &storage->objects);
    if (result < 0) return result;
    request->object_count = 0;
    if (storage->objects != NULL) {
        while (storage->objects[request->object_count] != NULL) request->object_count++;
    }
    request->objects = (const char *const *)storage->objects;
    return 0;
}

/// Reads a secret, `(oayays)`.
int read_secret(sd_bus_message *message, clavis_ss_secret *secret) {
    const void *parameters = NULL;
    const void *value = NULL;
    int result = sd_bus_message_enter_container(message, 'r', "oayays");
    if (result >= 0) result = sd_bus_message_read(message, "o", &secret->session);
    if (result >= 0) result = sd_bus_message_read_array(message, 'y', &parameters, &secret->parameters.count);
    if (result >= 0) result = sd_bus_message_read_array(message, 'y', &value, &secret->value.count);
    if (result >= 0) result = sd_bus_message_read(message, "s", &secret->content_type);
    if (result >= 0) result = sd_bus_message_exit_container(message);
    secret->parameters.bytes = parameters;
    secret->value.bytes = value;
    return result;
}

/// Reads the `a{sv}` properties of CreateCollection or CreateItem: `<interface>.Label` and, for items,
/// `<interface>.Attributes`; others are skipped.
int read_properties(sd_bus_message *message, const char *interface, clavis_ss_request *request,
                    request_storage *storage) {
    size_t prefix = strlen(interface);
    int result = sd_bus_message_enter_container(message, 'a', "{sv}");
    if (result < 0) return result;
    while ((result = sd_bus_message_enter_container(message, 'e', "sv")) > 0) {
        const char *key = NULL;
        result = sd_bus_message_read(message, "s", &key);
        if (result < 0) return result;
        int known = strncmp(key, interface, prefix) == 0 && key[prefix] == '.';
        if (known && strcmp(key + prefix + 1, "Label") == 0) {
            result = sd_bus_message_read(message, "v", "s", &request->label);
            request->has_label = result >= 0;
        } else if (known && strcmp(key + prefix + 1, "Attributes") == 0) {
            result = sd_bus_message_enter_container(message, 'v', "a{ss}");
            if (result >= 0) result = read_attributes(message, request, storage);
            if (result >= 0) result = sd_bus_message_exit_container(message);
        } else {
            result = sd_bus_message_skip(message, "v");
        }
        if (result < 0) return result;
        result = sd_bus_message_exit_container(message);
        if (result < 0) return result;
    }
    if (result < 0) return result;
    return sd_bus_message_exit_container(message);
}

