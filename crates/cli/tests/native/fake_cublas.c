/* A stand-in for cuBLAS (libcublas.so.N): the two entry points the probe's
 * first call uses, answering as the real library does (cuBLAS 12.9.3 says
 * 12 / 9 / 3 and was built with CUDA 12.8: cublasGetCudartVersion 12080).
 * Built once per version with -DMAJOR, -DMINOR, -DPATCH and -DCUDART.
 * FAKE_CUBLAS_MODE=fail: every call answers CUBLAS_STATUS_NOT_INITIALIZED. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int failing(void) {
    const char *m = getenv("FAKE_CUBLAS_MODE");
    return m && strcmp(m, "fail") == 0;
}

int cublasGetProperty(int type, int *value) {
    if (failing()) return 1; /* CUBLAS_STATUS_NOT_INITIALIZED */
    if (!value) return 7;    /* CUBLAS_STATUS_INVALID_VALUE */
    switch (type) {
    case 0: *value = MAJOR; return 0;
    case 1: *value = MINOR; return 0;
    case 2: *value = PATCH; return 0;
    default: return 7;
    }
}

size_t cublasGetCudartVersion(void) { return CUDART; }
