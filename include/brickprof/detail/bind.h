/* Not API: how <brickprof/brickprof.h> finds the agent. The first call in a
 * translation unit looks the agent's table up; the answer (the table, or
 * NULL when no agent is loaded) is cached, so later calls cost one load and
 * one branch. NVTX binds its tools the same way (nvtxDetail/nvtxInit.h). */
#ifndef BRICKPROF__BIND_H
#define BRICKPROF__BIND_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brickprof/detail/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BRICKPROF__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define BRICKPROF__UNUSED __attribute__((unused))
#define BRICKPROF__NOINLINE __attribute__((noinline))
#else
#define BRICKPROF__UNLIKELY(x) (x)
#define BRICKPROF__UNUSED
#define BRICKPROF__NOINLINE
#endif
/* glibc values, for strict C99 builds where <dlfcn.h> hides the GNU names. */
#ifdef RTLD_DEFAULT
#define BRICKPROF__RTLD_DEFAULT RTLD_DEFAULT
#else
#define BRICKPROF__RTLD_DEFAULT ((void*)0)
#endif
#ifdef RTLD_NOLOAD
#define BRICKPROF__RTLD_NOLOAD RTLD_NOLOAD
#else
#define BRICKPROF__RTLD_NOLOAD 0x00004
#endif

#define BRICKPROF__UNRESOLVED ((const brickprof__api_table*)(uintptr_t)1)

/* One per translation unit: NULL once we know there is no agent. */
static const brickprof__api_table* brickprof__table BRICKPROF__UNUSED = BRICKPROF__UNRESOLVED;

static BRICKPROF__NOINLINE BRICKPROF__UNUSED const brickprof__api_table* brickprof__resolve(void) {
  /* The agent is found in the global scope (LD_PRELOAD) or, when a CUDA or
   * NVTX loader opened it privately, by asking for the already-loaded file. */
  static const char* const kPathVars[] = {"BRICKPROF_AGENT", "CUDA_INJECTION64_PATH",
                                          "NVTX_INJECTION64_PATH"};
  const brickprof__api_table* api = 0;
  brickprof__get_api_fn get = 0;
  void* sym = dlsym(BRICKPROF__RTLD_DEFAULT, "brickprof_get_api");
  unsigned i;
  for (i = 0; !sym && i < sizeof(kPathVars) / sizeof(kPathVars[0]); ++i) {
    const char* path = getenv(kPathVars[i]);
    void* handle = (path && *path) ? dlopen(path, RTLD_LAZY | BRICKPROF__RTLD_NOLOAD) : 0;
    if (handle) {
      sym = dlsym(handle, "brickprof_get_api");
      dlclose(handle); /* only drops our reference; its loader keeps it */
    }
  }
  if (sym) {
    memcpy(&get, &sym, sizeof(get));
    api = get(BRICKPROF__ABI_VERSION);
  }
  __atomic_store_n(&brickprof__table, api, __ATOMIC_RELEASE);
  return api;
}

/* The agent's table, or NULL when no agent is loaded. */
static inline const brickprof__api_table* brickprof__api(void) {
  const brickprof__api_table* api = __atomic_load_n(&brickprof__table, __ATOMIC_ACQUIRE);
  if (BRICKPROF__UNLIKELY(api == BRICKPROF__UNRESOLVED)) return brickprof__resolve();
  return api;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BRICKPROF__BIND_H */
