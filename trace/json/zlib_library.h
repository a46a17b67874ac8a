// zlib, loaded at run time from libz.so.1: the agent stays self-contained
// (it links nothing a host process might lack) and the CLI shares the code.
#pragma once

#include <zlib.h>

#include <string>

namespace brickprof {

// The zlib functions brickprof uses, resolved from the loaded library.
struct ZlibLibrary {
  decltype(&::deflateInit2_) deflate_init2 = nullptr;
  decltype(&::deflate) deflate = nullptr;
  decltype(&::deflateEnd) deflate_end = nullptr;
  decltype(&::inflateInit2_) inflate_init2 = nullptr;
  decltype(&::inflate) inflate = nullptr;
  decltype(&::inflateReset) inflate_reset = nullptr;
  decltype(&::inflateEnd) inflate_end = nullptr;
};

// The library, loaded on first use (thread-safe), or nullptr when
// libz.so.1 or one of its functions cannot be found; `why` then says which.
const ZlibLibrary* zlib_library(std::string* why = nullptr);

// gzip framing for deflateInit2_/inflateInit2_: a 15-bit window, +16 for a
// gzip header and trailer; +32 on inflate also accepts a zlib header.
inline constexpr int kGzipWindowBits = 15 + 16;

}  // namespace brickprof
