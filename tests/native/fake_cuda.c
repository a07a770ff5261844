/* A stand-in for the CUDA driver (libcuda.so.1) with only the entry points
 * the native probe uses. FAKE_CUDA_MODE sets its behaviour:
 *   ok:N       cuInit succeeds, N devices (default 1)
 *   init-fail  cuInit fails with CUDA_ERROR_INSUFFICIENT_DRIVER (35)
 *   no-device  cuInit answers CUDA_ERROR_NO_DEVICE (100)
 *   zero       cuInit succeeds, cuDeviceGetCount counts 0
 *   hang       cuInit never returns
 *   crash      cuInit dereferences NULL (SIGSEGV)
 *   abort      cuInit calls abort() (SIGABRT)
 *   daemon     cuInit leaves a process behind that holds stdout open for 3 s,
 *              then succeeds with 1 device (as a driver's helper daemon might) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *mode(void) {
    const char *m = getenv("FAKE_CUDA_MODE");
    return m ? m : "ok:1";
}

static int devices(void) {
    const char *m = mode();
    if (strncmp(m, "ok", 2) == 0) return m[2] == ':' ? atoi(m + 3) : 1;
    if (strcmp(m, "daemon") == 0) return 1;
    return 0;
}

int cuInit(unsigned int flags) {
    const char *m = mode();
    if (flags != 0) return 1; /* CUDA_ERROR_INVALID_VALUE */
    if (strcmp(m, "init-fail") == 0) return 35;
    if (strcmp(m, "no-device") == 0) return 100;
    if (strcmp(m, "hang") == 0) for (;;) pause();
    if (strcmp(m, "crash") == 0) { volatile int *p = NULL; *p = 1; }
    if (strcmp(m, "abort") == 0) abort();
    if (strcmp(m, "daemon") == 0 && fork() == 0) { sleep(3); _exit(0); }
    return 0;
}

int cuDriverGetVersion(int *version) { *version = 12040; return 0; }
int cuDeviceGetCount(int *count) { *count = devices(); return 0; }

int cuDeviceGet(int *device, int ordinal) {
    if (ordinal < 0 || ordinal >= devices()) return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *device = ordinal;
    return 0;
}

int cuDeviceGetName(char *name, int len, int device) {
    snprintf(name, (size_t)len, "Fake GPU %d", device);
    return 0;
}

int cuDeviceGetAttribute(int *value, int attribute, int device) {
    (void)device;
    if (attribute == 75) { *value = 9; return 0; } /* COMPUTE_CAPABILITY_MAJOR */
    if (attribute == 76) { *value = 0; return 0; } /* COMPUTE_CAPABILITY_MINOR */
    return 1;
}

int cuDeviceTotalMem_v2(size_t *bytes, int device) {
    *bytes = (size_t)(80 + device) << 30;
    return 0;
}

int cuGetErrorName(int error, const char **name) {
    switch (error) {
    case 0: *name = "CUDA_SUCCESS"; return 0;
    case 35: *name = "CUDA_ERROR_INSUFFICIENT_DRIVER"; return 0;
    case 100: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
    default: return 1;
    }
}
