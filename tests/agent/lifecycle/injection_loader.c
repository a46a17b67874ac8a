/* Loads the agent the way CUDA's and NVTX's injection do (dlopen with
   RTLD_LOCAL, not LD_PRELOAD), from $INJECTION_LOADER_AGENT, so a test can
   see what the agent does when its exported hooks are not the program's. */
#include <dlfcn.h>
#include <stdlib.h>

__attribute__((constructor)) static void load_agent(void) {
  const char* path = getenv("INJECTION_LOADER_AGENT");
  if (path && *path) dlopen(path, RTLD_NOW | RTLD_LOCAL);
}
