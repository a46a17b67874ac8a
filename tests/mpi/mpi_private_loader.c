/* Loads the MPI user given as argument with RTLD_LOCAL and runs it. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* user = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!user) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  /* ISO C has no cast from dlsym's object pointer to a function's. */
  void* symbol = dlsym(user, "run_mpi");
  int (*run_mpi)(void) = NULL;
  if (!symbol) return 1;
  memcpy(&run_mpi, &symbol, sizeof run_mpi);
  return run_mpi();
}
