// Decompressors for fatbin entries: an LZ4 block decoder written here (the
// "speed" mode) and zstd (nvcc 13's default) through a dlopen'ed libzstd.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "agent/ptx/fatbin.h"

namespace brickprof::agent {

long lz4_block_decompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t capacity) {
  size_t ip = 0;
  size_t op = 0;
  while (ip < in_size) {
    uint8_t token = in[ip++];
    // Literal run; 15 means "more length bytes follow".
    size_t lit = token >> 4;
    if (lit == 15) {
      uint8_t b;
      do {
        if (ip >= in_size) return -1;
        b = in[ip++];
        lit += b;
      } while (b == 255);
    }
    if (lit > in_size - ip || lit > capacity - op) return -1;
    std::memcpy(out + op, in + ip, lit);
    ip += lit;
    op += lit;
    if (ip == in_size) break;  // the last sequence has literals only
    if (in_size - ip < 2) return -1;
    size_t offset = in[ip] | (static_cast<size_t>(in[ip + 1]) << 8);
    ip += 2;
    if (offset == 0 || offset > op) return -1;
    size_t match = (token & 15u) + 4;
    if ((token & 15u) == 15) {
      uint8_t b;
      do {
        if (ip >= in_size) return -1;
        b = in[ip++];
        match += b;
      } while (b == 255);
    }
    if (match > capacity - op) return -1;
    // Byte by byte: the source may overlap the bytes being written.
    for (size_t i = 0; i < match; ++i, ++op) out[op] = out[op - offset];
  }
  return static_cast<long>(op);
}

namespace {

struct Zstd {
  size_t (*decompress)(void*, size_t, const void*, size_t) = nullptr;
  unsigned (*is_error)(size_t) = nullptr;
  const char* (*error_name)(size_t) = nullptr;
};

const Zstd* zstd() {
  static std::once_flag once;
  static Zstd lib;
  std::call_once(once, [] {
    void* h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) h = dlopen("libzstd.so", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return;
    lib.decompress = reinterpret_cast<decltype(lib.decompress)>(dlsym(h, "ZSTD_decompress"));
    lib.is_error = reinterpret_cast<decltype(lib.is_error)>(dlsym(h, "ZSTD_isError"));
    lib.error_name = reinterpret_cast<decltype(lib.error_name)>(dlsym(h, "ZSTD_getErrorName"));
  });
  return lib.decompress && lib.is_error ? &lib : nullptr;
}

}  // namespace

long zstd_decompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t capacity,
                     std::string* error) {
  const Zstd* z = zstd();
  if (z == nullptr) {
    *error = "zstd-compressed entry and libzstd.so.1 not found";
    return -1;
  }
  size_t n = z->decompress(out, capacity, in, in_size);
  if (z->is_error(n)) {
    *error = std::string("zstd: ") + (z->error_name ? z->error_name(n) : "error");
    return -1;
  }
  return static_cast<long>(n);
}

}  // namespace brickprof::agent
