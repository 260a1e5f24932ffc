// libsystemd, loaded on first use: opened and its sd-bus functions found once per process.
#define CLAVIS_BUS_LIBRARY
#include "CBusLibrary.h"
#include <dlfcn.h>
#include <pthread.h>

static clavis_bus_api api;
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
#define CLAVIS_BUS_FIND(name)                              \
    *(void **)(&api.name) = dlsym(handle, #name);          \
    if (api.name == NULL) return;
    CLAVIS_BUS_FUNCTIONS(CLAVIS_BUS_FIND)
#undef CLAVIS_BUS_FIND
    loaded = 1;
}

const clavis_bus_api *clavis_bus(void) {
    pthread_once(&load_once, load);
    return loaded ? &api : NULL;
}
