/* An empty shared library: the stand-in for a CUDA library (libcublas.so.12,
 * libcufft.so.11, libcudnn.so.9) or libtorch, whose check is that it loads. */
int backend_targets_stand_in;
