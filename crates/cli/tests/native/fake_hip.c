/* A stand-in for the HIP runtime (libamdhip64.so.N) with only the entry
 * points the native probe uses, answering as HIP 5.2 does. FAKE_HIP_MODE:
 *   ok:N        hipInit succeeds, N devices (default 1)
 *   init-fail   hipInit answers hipErrorInsufficientDriver (35), the count
 *               hipErrorInsufficientDriver too
 *   no-device   as real HIP 5.2 on a host without an AMD GPU: hipInit
 *               answers hipErrorInvalidDevice (101), hipGetDeviceCount
 *               hipErrorNoDevice (100) with a count of 0
 *   no-device-100  hipInit answers hipErrorNoDevice (100)
 * The versions answer before hipInit: 5.2.21153 (50221153). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mode(void) {
    const char *m = getenv("FAKE_HIP_MODE");
    return m ? m : "ok:1";
}

static int is(const char *name) { return strcmp(mode(), name) == 0; }

int hipInit(unsigned int flags) {
    (void)flags;
    if (is("init-fail")) return 35;
    if (is("no-device")) return 101;
    if (is("no-device-100")) return 100;
    return 0;
}

int hipGetDeviceCount(int *count) {
    const char *m = mode();
    if (is("init-fail")) return 35;
    if (strncmp(m, "ok", 2) == 0) { *count = m[2] == ':' ? atoi(m + 3) : 1; return 0; }
    *count = 0;
    return 100;
}

int hipDeviceGetName(char *name, int len, int device) {
    snprintf(name, (size_t)len, "Fake Instinct %d", device);
    return 0;
}

int hipRuntimeGetVersion(int *version) { *version = 50221153; return 0; }
int hipDriverGetVersion(int *version) { *version = 50221153; return 0; }

const char *hipGetErrorName(int error) {
    switch (error) {
    case 0: return "hipSuccess";
    case 35: return "hipErrorInsufficientDriver";
    case 100: return "hipErrorNoDevice";
    case 101: return "hipErrorInvalidDevice";
    default: return "hipErrorUnknown";
    }
}
