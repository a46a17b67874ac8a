/* A stand-in libz.so.1 without zlib's functions: first on LD_LIBRARY_PATH,
 * it is what the agent's dlopen("libz.so.1") finds, as on a machine whose
 * zlib cannot be used. */
int brickprof_zlib_stub_marker = 1;
