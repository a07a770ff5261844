/* A stand-in for the HIP runtime (libamdhip64.so.6) with only the entry
 * points the native probe uses. FAKE_HIP_MODE: ok:N, init-fail, no-device,
 * as FAKE_CUDA_MODE (fake_cuda.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mode(void) {
    const char *m = getenv("FAKE_HIP_MODE");
    return m ? m : "ok:1";
}

int hipInit(unsigned int flags) {
    (void)flags;
    if (strcmp(mode(), "init-fail") == 0) return 35; /* hipErrorInsufficientDriver */
    if (strcmp(mode(), "no-device") == 0) return 100; /* hipErrorNoDevice */
    return 0;
}

int hipGetDeviceCount(int *count) {
    const char *m = mode();
    *count = strncmp(m, "ok", 2) == 0 ? (m[2] == ':' ? atoi(m + 3) : 1) : 0;
    return 0;
}

int hipDeviceGetName(char *name, int len, int device) {
    snprintf(name, (size_t)len, "Fake Instinct %d", device);
    return 0;
}

int hipDriverGetVersion(int *version) { *version = 60241134; return 0; }

const char *hipGetErrorName(int error) {
    switch (error) {
    case 35: return "hipErrorInsufficientDriver";
    case 100: return "hipErrorNoDevice";
    default: return "hipErrorUnknown";
    }
}
