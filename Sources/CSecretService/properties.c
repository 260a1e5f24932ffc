/// The properties of the service, collections and items, read from one description per call.
#include "secret_service_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// The description of the object at `path` when its property `property` can be read: NULL with `error` set when
/// the description failed, or when the lock seals the property (`IsLocked`). GetAll answers a sealed item's
/// properties empty instead: libsecret loads an item with one GetAll, which must succeed for it to unlock the item.
static const clavis_ss_reply *readable(void *userdata, const char *path, const char *property, sd_bus_error *error) {
    clavis_secret_service *service = userdata;
    const clavis_ss_reply *reply = describe(service, path, 0, error);
    if (reply == NULL || !reply->details_sealed) return reply;
    const char *member = sd_bus_message_get_member(sd_bus_get_current_message(service->bus));
    if (member != NULL && strcmp(member, "GetAll") == 0) return reply;
    sd_bus_error_setf(error, SECRET_INTERFACE ".Error.IsLocked", "the item is locked: its %s is sealed with it",
                      property);
    return NULL;
}

int get_children(sd_bus *bus, const char *path, const char *interface, const char *property,
                 sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)interface, (void)property;
    const clavis_ss_reply *reply = describe(userdata, path, 1, error);
    return reply == NULL ? -sd_bus_error_get_errno(error) : append_paths(value, &reply->paths[0]);
}

int get_label(sd_bus *bus, const char *path, const char *interface, const char *property,
              sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)interface, (void)property;
    // A sealed item's label reads empty rather than failing: secretstorage reads it to learn whether the item
    // exists, and takes any other error for a failure of the whole search.
    const clavis_ss_reply *reply = describe(userdata, path, 0, error);
    return reply == NULL ? -sd_bus_error_get_errno(error)
                         : sd_bus_message_append(value, "s", reply->label != NULL ? reply->label : "");
}

int get_locked(sd_bus *bus, const char *path, const char *interface, const char *property,
               sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)interface, (void)property;
    const clavis_ss_reply *reply = describe(userdata, path, 0, error);
    return reply == NULL ? -sd_bus_error_get_errno(error) : sd_bus_message_append(value, "b", reply->locked);
}

int get_date(sd_bus *bus, const char *path, const char *interface, const char *property,
             sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)interface;
    const clavis_ss_reply *reply = readable(userdata, path, property, error);
    if (reply == NULL) return -sd_bus_error_get_errno(error);
    return sd_bus_message_append(value, "t", strcmp(property, "Created") == 0 ? reply->created : reply->modified);
}

int get_attributes(sd_bus *bus, const char *path, const char *interface, const char *property,
                   sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)interface, (void)property;
    const clavis_ss_reply *reply = readable(userdata, path, property, error);
    if (reply == NULL) return -sd_bus_error_get_errno(error);
    int result = sd_bus_message_open_container(value, 'a', "{ss}");
    for (size_t index = 0; result >= 0 && index < reply->attribute_names.count; index++) {
        result = sd_bus_message_append(value, "{ss}", reply->attribute_names.items[index],
                                       reply->attribute_values.items[index]);
    }
    return result >= 0 ? sd_bus_message_close_container(value) : result;
}

/// Writing Label or Attributes: one CLAVIS_SS_SET_PROPERTIES request.
int set_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                 sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)interface;
    clavis_secret_service *service = userdata;
    clavis_ss_request request = request_for(CLAVIS_SS_SET_PROPERTIES);
    request_storage storage = {0};
    int result;
    if (strcmp(property, "Label") == 0) {
        result = sd_bus_message_read(value, "s", &request.label);
        request.has_label = 1;
    } else {
        result = read_attributes(value, &request, &storage);
    }
    if (result < 0) {
        storage_free(&storage);
        return invalid(error, result);
    }
    clavis_ss_reply *reply = NULL;
    result = call_handler(service, sd_bus_get_current_message(service->bus), path, &request, &reply, error);
    storage_free(&storage);
    if (result < 0) return result;
    emit_signals(service->bus, reply, sd_bus_message_get_sender(sd_bus_get_current_message(service->bus)));
    reply_free(reply);
    return 1;
}

