// A gzip-compressed trace file inflated on demand into one reserved range
// of address space: the reader sees contiguous text that grows a few MB at a
// time, and the pages it has finished with are returned to the system, so a
// .json.gz reads in no more memory than the plain file (see trace_text.h).
#pragma once

#include <zlib.h>

#include <memory>
#include <string>

#include "trace/json/trace_text.h"
#include "trace/json/zlib_library.h"

namespace brickprof {

class GzipText : public TraceText {
 public:
  // Takes `fd` (closed by the destructor). Throws TraceError (the path and
  // the problem) when zlib cannot be loaded or no address space is left.
  GzipText(int fd, const std::string& path);
  ~GzipText() override;

  bool more() override;
  std::string error() const override { return error_; }
  size_t expected_size() const override;
  void release(size_t offset) override;

 private:
  void open(const std::string& path);
  void close_all();
  bool read_input();
  bool fail(std::string why);

  const ZlibLibrary* zlib_ = nullptr;
  int fd_ = -1;
  z_stream stream_{};
  bool stream_open_ = false;
  bool ended_ = false;  // the last member's trailer was read
  uint64_t compressed_size_ = 0;
  uint32_t size_mod_4g_ = 0;  // the gzip trailer's ISIZE: the size mod 2^32
  char* base_ = nullptr;      // the reserved range
  size_t reserved_ = 0;
  size_t writable_ = 0;  // bytes of it made read-write so far
  std::atomic<size_t> released_{0};
  std::unique_ptr<unsigned char[]> input_;
  std::string error_;
};

}  // namespace brickprof
