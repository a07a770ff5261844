/* A stand-in for cuDNN 9's libcudnn.so.9, which is a shim: it loads alone,
 * and on its first call loads libcudnn_graph.so.9 (beside itself through its
 * DT_RPATH $ORIGIN, then the loader's path) and forwards to it; without it,
 * the call prints "Invalid handle. Cannot load symbol <name>" on stderr and
 * aborts (SIGABRT), as the real shim does. Built with
 * -Wl,--disable-new-dtags,-rpath,'$ORIGIN' and -ldl. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef size_t (*size_query)(void);

static size_query forward(const char *name) {
    void *graph = dlopen("libcudnn_graph.so.9", RTLD_NOW | RTLD_LOCAL);
    void *symbol = graph ? dlsym(graph, name) : NULL;
    if (!symbol) {
        fprintf(stderr, "Invalid handle. Cannot load symbol %s\n", name);
        abort();
    }
    return (size_query)symbol;
}

size_t cudnnGetVersion(void) { return forward("cudnnGetVersion")(); }
size_t cudnnGetCudartVersion(void) { return forward("cudnnGetCudartVersion")(); }
