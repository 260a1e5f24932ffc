#include "secret_service_internal.h"

#include <stdlib.h>
#include <string.h>

/// Appends a copy of `text` to `list`; on failure the reply fails as out of memory.
static void push(clavis_ss_reply *reply, string_list *list, const char *text) {
    if (reply->out_of_memory) return;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity == 0 ? 8 : list->capacity * 2;
        char **grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL) {
            reply->out_of_memory = 1;
            return;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    char *copy = strdup(text != NULL ? text : "");
    if (copy == NULL) {
        reply->out_of_memory = 1;
        return;
    }
    list->items[list->count++] = copy;
}

static void free_list(string_list *list) {
    for (size_t index = 0; index < list->count; index++) free(list->items[index]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/// A copy of `count` bytes, zeroed when freed (`free_bytes`); NULL (and the reply failed) when memory runs out.
static uint8_t *copy_bytes(clavis_ss_reply *reply, const uint8_t *bytes, size_t count) {
    uint8_t *copy = malloc(count > 0 ? count : 1);
    if (copy == NULL) {
        reply->out_of_memory = 1;
        return NULL;
    }
    if (count > 0) memcpy(copy, bytes, count);
    return copy;
}

static void free_bytes(uint8_t *bytes, size_t count) {
    if (bytes != NULL) explicit_bzero(bytes, count);
    free(bytes);
}

void clavis_ss_reply_fail(clavis_ss_reply *reply, clavis_ss_error error, const char *message) {
    if (reply->failed) return;
    reply->failed = 1;
    reply->error = error;
    reply->message = strdup(message != NULL ? message : "");
}

void clavis_ss_reply_add_path(clavis_ss_reply *reply, int list, const char *path) {
    push(reply, &reply->paths[list == 0 ? 0 : 1], path);
}

void clavis_ss_reply_set_bytes(clavis_ss_reply *reply, const uint8_t *bytes, size_t count) {
    free_bytes(reply->bytes, reply->byte_count);
    reply->bytes = copy_bytes(reply, bytes, count);
    reply->byte_count = reply->bytes != NULL ? count : 0;
    reply->has_bytes = reply->bytes != NULL;
}

void clavis_ss_reply_add_secret(clavis_ss_reply *reply, const char *item, const clavis_ss_secret *secret) {
    if (reply->out_of_memory) return;
    if (reply->secret_count == reply->secret_capacity) {
        size_t capacity = reply->secret_capacity == 0 ? 4 : reply->secret_capacity * 2;
        stored_secret *grown = realloc(reply->secrets, capacity * sizeof *grown);
        if (grown == NULL) {
            reply->out_of_memory = 1;
            return;
        }
        reply->secrets = grown;
        reply->secret_capacity = capacity;
    }
    stored_secret *entry = &reply->secrets[reply->secret_count];
    memset(entry, 0, sizeof *entry);
    entry->item = strdup(item);
    entry->session = strdup(secret->session);
    entry->content_type = strdup(secret->content_type != NULL ? secret->content_type : "");
    entry->parameters = copy_bytes(reply, secret->parameters.bytes, secret->parameters.count);
    entry->parameter_count = secret->parameters.count;
    entry->value = copy_bytes(reply, secret->value.bytes, secret->value.count);
    entry->value_count = secret->value.count;
    reply->secret_count++;
    if (entry->item == NULL || entry->session == NULL || entry->content_type == NULL) reply->out_of_memory = 1;
}

void clavis_ss_reply_describe(clavis_ss_reply *reply, const char *label, int locked, uint64_t created,
                              uint64_t modified) {
    free(reply->label);
    reply->label = strdup(label != NULL ? label : "");
    if (reply->label == NULL) reply->out_of_memory = 1;
    reply->locked = locked;
    reply->created = created;
    reply->modified = modified;
}

void clavis_ss_reply_seal_details(clavis_ss_reply *reply) { reply->details_sealed = 1; }

void clavis_ss_reply_add_attribute(clavis_ss_reply *reply, const char *name, const char *value) {
    push(reply, &reply->attribute_names, name);
    push(reply, &reply->attribute_values, value);
}

void clavis_ss_reply_set_dismissed(clavis_ss_reply *reply, int dismissed) { reply->dismissed = dismissed; }

void clavis_ss_reply_emit(clavis_ss_reply *reply, const char *path, const char *member, const char *object) {
    push(reply, &reply->signal_paths, path);
    push(reply, &reply->signal_members, member);
    push(reply, &reply->signal_objects, object);
}

void clavis_ss_reply_defer(clavis_ss_reply *reply) { reply->deferred = 1; }

void clavis_ss_reply_set_signals_private(clavis_ss_reply *reply, int is_private) {
    reply->signals_private = is_private;
}

clavis_ss_reply *reply_new(void) { return calloc(1, sizeof(clavis_ss_reply)); }

void reply_free(clavis_ss_reply *reply) {
    if (reply == NULL) return;
    free(reply->message);
    free_list(&reply->paths[0]);
    free_list(&reply->paths[1]);
    free_bytes(reply->bytes, reply->byte_count);
    for (size_t index = 0; index < reply->secret_count; index++) {
        stored_secret *entry = &reply->secrets[index];
        free(entry->item);
        free(entry->session);
        free(entry->content_type);
        free_bytes(entry->parameters, entry->parameter_count);
        free_bytes(entry->value, entry->value_count);
    }
    free(reply->secrets);
    free(reply->label);
    free_list(&reply->attribute_names);
    free_list(&reply->attribute_values);
    free_list(&reply->signal_paths);
    free_list(&reply->signal_members);
    free_list(&reply->signal_objects);
    free(reply);
}
