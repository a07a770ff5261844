/* A stand-in for cuFFT (libcufft.so.N): cufftGetProperty as the real library
 * answers it (cuFFT 11.4.1 says 11 / 4 / 1). Built once per version with
 * -DMAJOR, -DMINOR and -DPATCH. */
int cufftGetProperty(int type, int *value) {
    switch (type) {
    case 0: *value = MAJOR; return 0;
    case 1: *value = MINOR; return 0;
    case 2: *value = PATCH; return 0;
    default: return 3; /* CUFFT_INVALID_TYPE */
    }
}

int cufftGetVersion(int *version) {
    *version = MAJOR * 1000 + MINOR * 100 + PATCH;
    return 0;
}
