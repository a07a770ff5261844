/* An empty shared library: a file that loads but answers nothing (a library
 * whose first call the probe cannot make), and the dependency stand-in
 * libcublasLt.so.12. */
int backend_targets_stand_in;
