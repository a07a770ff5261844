/* A stand-in for libtorch (libtorch.so): the entry point the probe's first
 * call uses, answering as libtorch 2.15 does (aoti_torch_abi_version:
 * major << 56 | minor << 48). */
#include <stdint.h>

uint64_t aoti_torch_abi_version(void) { return ((uint64_t)2 << 56) | ((uint64_t)15 << 48); }
