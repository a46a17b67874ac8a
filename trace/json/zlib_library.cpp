// Loading libz.so.1 (see zlib_library.h).
#include "trace/json/zlib_library.h"

#include <dlfcn.h>

#include <cstring>

namespace brickprof {
namespace {

struct Loaded {
  ZlibLibrary zlib;
  std::string error;  // empty when every function was found
};

template <typename Fn>
bool resolve(void* handle, const char* name, Fn* out, std::string* error) {
  void* symbol = dlsym(handle, name);
  if (!symbol) {
    *error = std::string("libz.so.1 has no ") + name;
    return false;
  }
  std::memcpy(out, &symbol, sizeof symbol);
  return true;
}

Loaded load() {
  Loaded l;
  // Never closed: the functions are used until the process ends.
  void* handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    l.error = std::string("cannot load libz.so.1") + (why ? std::string(": ") + why : "");
    return l;
  }
  ZlibLibrary& z = l.zlib;
  // Stops at the first one missing, which `error` then names.
  (void)(resolve(handle, "deflateInit2_", &z.deflate_init2, &l.error) &&
         resolve(handle, "deflate", &z.deflate, &l.error) &&
         resolve(handle, "deflateEnd", &z.deflate_end, &l.error) &&
         resolve(handle, "inflateInit2_", &z.inflate_init2, &l.error) &&
         resolve(handle, "inflate", &z.inflate, &l.error) &&
         resolve(handle, "inflateReset", &z.inflate_reset, &l.error) &&
         resolve(handle, "inflateEnd", &z.inflate_end, &l.error));
  return l;
}

}  // namespace

const ZlibLibrary* zlib_library(std::string* why) {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) {
    if (why) *why = loaded.error;
    return nullptr;
  }
  return &loaded.zlib;
}

}  // namespace brickprof
