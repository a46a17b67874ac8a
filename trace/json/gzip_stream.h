// gzip compression as a layer around a byte stream: an exporter writes to an
// ostream over a GzipStreamBuf, which deflates into the stream below it.
#pragma once

#include <zlib.h>

#include <memory>
#include <streambuf>

#include "trace/json/zlib_library.h"

namespace brickprof {

class GzipStreamBuf : public std::streambuf {
 public:
  // Throws std::runtime_error when zlib cannot be loaded or set up. Level 1
  // (zlib's fastest) already shrinks a JSON trace about 8 times.
  explicit GzipStreamBuf(std::streambuf* sink, int level = 1);
  ~GzipStreamBuf() override;
  GzipStreamBuf(const GzipStreamBuf&) = delete;
  GzipStreamBuf& operator=(const GzipStreamBuf&) = delete;

  // Compresses what is left and writes the gzip trailer; throws
  // std::runtime_error when the sink refuses bytes. Call once, at the end.
  void finish();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize n) override;

 private:
  void deflate_input(int flush);

  const ZlibLibrary* zlib_;
  std::streambuf* sink_;
  z_stream stream_{};
  bool open_ = false;
  std::unique_ptr<char[]> in_, out_;
};

}  // namespace brickprof
