/* A stand-in for cuDNN 9's libcudnn_graph.so.9, the sub-library that answers
 * the shim's version calls: cuDNN 9.28.0 (92800), built for the CUDA runtime
 * -DCUDART (12090 in the cu12 wheel, 13040 in the cu13 one). */
#include <stddef.h>

size_t cudnnGetVersion(void) { return 92800; }
size_t cudnnGetCudartVersion(void) { return CUDART; }
