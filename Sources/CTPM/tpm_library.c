// tpm2-tss, loaded on first use: its libraries are opened and its functions found once per process.
#define CLAVIS_TSS_LIBRARY
#include "tpm_internal.h"
#include <dlfcn.h>
#include <pthread.h>

static clavis_tss_api api;
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *libraries[] = {"libtss2-esys.so.0", "libtss2-tctildr.so.0", "libtss2-mu.so.0", "libtss2-rc.so.0"};
    void *handles[4];
    for (int index = 0; index < 4; index++) {
        handles[index] = dlopen(libraries[index], RTLD_NOW | RTLD_LOCAL);
        if (handles[index] == NULL) return;
    }
#define CLAVIS_TSS_FIND(name)                                                  \
    for (int index = 0; index < 4 && api.name == NULL; index++) {             \
        *(void **)(&api.name) = dlsym(handles[index], #name);                  \
    }                                                                          \
    if (api.name == NULL) return;
    CLAVIS_TSS_FUNCTIONS(CLAVIS_TSS_FIND)
#undef CLAVIS_TSS_FIND
    loaded = 1;
}

const clavis_tss_api *clavis_tss(void) {
    pthread_once(&load_once, load);
    return loaded ? &api : NULL;
}
