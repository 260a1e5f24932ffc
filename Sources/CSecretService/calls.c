/// Handing a call to the program's handler and writing its reply in the shape the method answers.
#include "secret_service_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// Hands `request` (for the object `path`, from the sender of `message`) to the program's handler; 0 with
/// `*answered` the reply, or a negative errno with `error` set.
int call_handler(clavis_secret_service *service, sd_bus_message *message, const char *path,
                 clavis_ss_request *request, clavis_ss_reply **answered, sd_bus_error *error) {
    request->path = path;
    read_caller(service, sd_bus_message_get_sender(message), request);
    clavis_ss_reply *reply = reply_new();
    if (reply == NULL) {
        if (request->pidfd >= 0) close(request->pidfd);
        return sd_bus_error_set_errno(error, ENOMEM);
    }
    service->handler(service->context, request, reply);
    if (request->pidfd >= 0) close(request->pidfd);
    // A secret arrives in place in the message's buffer (in clear in a plain session): the handler has copied it,
    // and the buffer is wiped before it goes back to the heap.
    if (request->secret.value.bytes != NULL && request->secret.value.count > 0) {
        explicit_bzero((void *)request->secret.value.bytes, request->secret.value.count);
    }
    if (reply->failed || reply->out_of_memory) {
        int result = reply_error(reply, error);
        reply_free(reply);
        return result;
    }
    *answered = reply;
    return 0;
}

int append_paths(sd_bus_message *message, const string_list *list) {
    int result = sd_bus_message_open_container(message, 'a', "o");
    for (size_t index = 0; result >= 0 && index < list->count; index++) {
        result = sd_bus_message_append(message, "o", list->items[index]);
    }
    return result >= 0 ? sd_bus_message_close_container(message) : result;
}

/// The first path of `list`, or "/" (the specification's "no object").
static const char *first_path(const string_list *list) { return list->count > 0 ? list->items[0] : "/"; }

static int append_secret(sd_bus_message *message, const stored_secret *secret) {
    int result = sd_bus_message_open_container(message, 'r', "oayays");
    if (result >= 0) result = sd_bus_message_append(message, "o", secret->session);
    if (result >= 0) result = sd_bus_message_append_array(message, 'y', secret->parameters, secret->parameter_count);
    if (result >= 0) result = sd_bus_message_append_array(message, 'y', secret->value, secret->value_count);
    if (result >= 0) result = sd_bus_message_append(message, "s", secret->content_type);
    return result >= 0 ? sd_bus_message_close_container(message) : result;
}

static int append_reply(sd_bus_message *message, reply_shape shape, const clavis_ss_reply *reply) {
    int result = 0;
    switch (shape) {
    case SHAPE_NONE: break;
    case SHAPE_OPEN_SESSION:
        if (reply->has_bytes) {
            result = sd_bus_message_open_container(message, 'v', "ay");
            if (result >= 0) result = sd_bus_message_append_array(message, 'y', reply->bytes, reply->byte_count);
            if (result >= 0) result = sd_bus_message_close_container(message);
        } else {
            result = sd_bus_message_append(message, "v", "s", "");
        }
        if (result >= 0) result = sd_bus_message_append(message, "o", first_path(&reply->paths[0]));
        break;
    case SHAPE_TWO_PATH_LISTS:
        result = append_paths(message, &reply->paths[0]);
        if (result >= 0) result = append_paths(message, &reply->paths[1]);
        break;
    case SHAPE_ONE_PATH_LIST:
        result = sd_bus_message_open_container(message, 'a', "o");
        for (int list = 0; list < 2; list++) {
            for (size_t index = 0; result >= 0 && index < reply->paths[list].count; index++) {
                result = sd_bus_message_append(message, "o", reply->paths[list].items[index]);
            }
        }
        if (result >= 0) result = sd_bus_message_close_container(message);
        break;
    case SHAPE_PATHS_AND_PROMPT:
        result = append_paths(message, &reply->paths[0]);
        if (result >= 0) result = sd_bus_message_append(message, "o", first_path(&reply->paths[1]));
        break;
    case SHAPE_PATH_AND_PROMPT:
        result = sd_bus_message_append(message, "oo", first_path(&reply->paths[0]), first_path(&reply->paths[1]));
        break;
    case SHAPE_PROMPT: result = sd_bus_message_append(message, "o", first_path(&reply->paths[1])); break;
    case SHAPE_PATH: result = sd_bus_message_append(message, "o", first_path(&reply->paths[0])); break;
    case SHAPE_SECRETS:
        result = sd_bus_message_open_container(message, 'a', "{o(oayays)}");
        for (size_t index = 0; result >= 0 && index < reply->secret_count; index++) {
            result = sd_bus_message_open_container(message, 'e', "o(oayays)");
            if (result >= 0) result = sd_bus_message_append(message, "o", reply->secrets[index].item);
            if (result >= 0) result = append_secret(message, &reply->secrets[index]);
            if (result >= 0) result = sd_bus_message_close_container(message);
        }
        if (result >= 0) result = sd_bus_message_close_container(message);
        break;
    case SHAPE_SECRET:
        if (reply->secret_count != 1) return -EINVAL;
        result = append_secret(message, &reply->secrets[0]);
        break;
    }
    return result;
}

/// Runs `request` for `message` and replies in `shape`, then emits the signals the handler asked for.
int answer(sd_bus_message *message, clavis_secret_service *service, clavis_ss_request *request,
           reply_shape shape, sd_bus_error *error) {
    clavis_ss_reply *reply = NULL;
    int result = call_handler(service, message, sd_bus_message_get_path(message), request, &reply, error);
    if (result < 0) return result;
    sd_bus_message *method_return = NULL;
    result = sd_bus_message_new_method_return(message, &method_return);
    if (result >= 0) result = append_reply(method_return, shape, reply);
    if (result >= 0) result = sd_bus_send(NULL, method_return, NULL);
    sd_bus_message_unref(method_return);
    if (result >= 0) emit_signals(service->bus, reply, sd_bus_message_get_sender(message));
    reply_free(reply);
    return result < 0 ? sd_bus_error_set_errno(error, -result) : 1;
}

/// A request for `operation` with nothing read yet.
clavis_ss_request request_for(clavis_ss_operation operation) {
    clavis_ss_request request;
    memset(&request, 0, sizeof request);
    request.operation = operation;
    request.pidfd = -1;
    return request;
}

int invalid(sd_bus_error *error, int result) {
    return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "malformed arguments (%s)", strerror(-result));
}

/// The description of the object at `path` for the message being answered, with its children when `with_children`:
/// asked of the handler once per message and object (again only when the children are wanted after all), so that a
/// GetAll reads its properties from one or two answers.
const clavis_ss_reply *describe(clavis_secret_service *service, const char *path, int with_children,
                                sd_bus_error *error) {
    sd_bus_message *current = sd_bus_get_current_message(service->bus);
    if (current != NULL && current == service->described_for && service->described_path != NULL &&
        strcmp(service->described_path, path) == 0 && (service->described_with_children || !with_children)) {
        return service->described;
    }
    clavis_ss_request request = request_for(CLAVIS_SS_DESCRIBE);
    request.with_children = with_children;
    clavis_ss_reply *reply = NULL;
    if (current == NULL) {
        sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "no call to answer");
        return NULL;
    }
    if (call_handler(service, current, path, &request, &reply, error) < 0) return NULL;
    sd_bus_message_unref(service->described_for);
    free(service->described_path);
    reply_free(service->described);
    service->described_for = sd_bus_message_ref(current);
    service->described_path = strdup(path);
    service->described = reply;
    service->described_with_children = with_children;
    return reply;
}

