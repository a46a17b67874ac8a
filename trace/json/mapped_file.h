// A read-only private mapping of a whole file for the trace reader; pages it
// has finished with are handed back, so a 3 GB trace never has 3 GB resident.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace brickprof {

class MappedFile {
 public:
  // Throws TraceError naming the path when it cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view text() const { return {data_, size_}; }
  // Drops the resident pages below `offset` (whole 64 MiB steps).
  void release(size_t offset);

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
};

}  // namespace brickprof
