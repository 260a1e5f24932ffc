/// Deferred prompts: another thread asks the user and hands the outcome to the serving thread, which alone touches
/// the bus, through a locked list and an eventfd that wakes it.
#include "secret_service_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void free_completion(completion *done) {
    for (size_t index = 0; index < done->count; index++) free(done->objects[index]);
    free(done->objects);
    free(done->path);
    free(done);
}

void clavis_secret_service_retain(clavis_secret_service *service) {
    atomic_fetch_add(&service->references, 1);
}

void clavis_secret_service_complete(clavis_secret_service *service, const char *path, int dismissed,
                                    const char *const *objects, size_t count) {
    completion *done = calloc(1, sizeof *done);
    if (done != NULL) {
        done->path = strdup(path);
        done->dismissed = dismissed;
        done->objects = calloc(count + 1, sizeof *done->objects);
        int copied = done->path != NULL && done->objects != NULL;
        for (size_t index = 0; copied && index < count; index++) {
            copied = (done->objects[index] = strdup(objects[index])) != NULL;
            done->count += copied;
        }
        // Out of memory: the prompt completes dismissed, with nothing.
        if (!copied) {
            for (size_t index = 0; index < done->count; index++) free(done->objects[index]);
            done->count = 0;
            done->dismissed = 1;
        }
        if (done->path == NULL) {
            free_completion(done);
            done = NULL;
        }
    }
    if (done != NULL) {
        pthread_mutex_lock(&service->lock);
        if (service->closed) {
            free_completion(done);
        } else {
            done->next = service->completions;
            service->completions = done;
            uint64_t one = 1;
            ssize_t written = write(service->wake, &one, sizeof one);
            (void)written; // a full counter already wakes the serving thread
        }
        pthread_mutex_unlock(&service->lock);
    }
    release(service);
}

void emit_completions(clavis_secret_service *service) {
    pthread_mutex_lock(&service->lock);
    completion *list = service->completions;
    service->completions = NULL;
    pthread_mutex_unlock(&service->lock);
    while (list != NULL) {
        completion *next = list->next;
        string_list objects = {list->objects, list->count, list->count};
        emit_completed(service, list->path, list->dismissed, &objects);
        free_completion(list);
        list = next;
    }
}

void release(clavis_secret_service *service) {
    if (atomic_fetch_sub(&service->references, 1) != 1) return;
    completion *list = service->completions;
    while (list != NULL) {
        completion *next = list->next;
        free_completion(list);
        list = next;
    }
    if (service->wake >= 0) close(service->wake);
    pthread_mutex_destroy(&service->lock);
    free(service);
}
