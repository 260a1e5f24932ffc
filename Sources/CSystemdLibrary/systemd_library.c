// libsystemd, loaded on first use: opened and its functions found once per process.
#define CLAVIS_SYSTEMD_LIBRARY
#include "CSystemdLibrary.h"
#include <dlfcn.h>
#include <pthread.h>

const unsigned clavis_systemd_vtable_format_stand_in = 0;

static clavis_systemd_api api;
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
#define CLAVIS_SYSTEMD_FIND(name)                          \
    *(void **)(&api.name) = dlsym(handle, #name);          \
    if (api.name == NULL) return;
    CLAVIS_SYSTEMD_FUNCTIONS(CLAVIS_SYSTEMD_FIND)
#undef CLAVIS_SYSTEMD_FIND
    api.vtable_format = dlsym(handle, "sd_bus_object_vtable_format");
    if (api.vtable_format == NULL) return;
    loaded = 1;
}

const clavis_systemd_api *clavis_systemd(void) {
    pthread_once(&load_once, load);
    return loaded ? &api : NULL;
}
