// Opening a trace's text, plain or gzip-compressed (see trace_text.h).
#include "trace/json/trace_text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trace/json/gzip_text.h"
#include "trace/json/mapped_file.h"
#include "trace/json/trace_json.h"

namespace brickprof {
namespace {

class MemoryText : public TraceText {
 public:
  explicit MemoryText(std::string_view text) {
    data_ = text.data();
    size_.store(text.size());
  }
};

class MappedText : public TraceText {
 public:
  explicit MappedText(const std::string& path) : file_(path) {
    data_ = file_.text().data();
    size_.store(file_.text().size());
  }
  void release(size_t offset) override { file_.release(offset); }

 private:
  MappedFile file_;
};

}  // namespace

std::unique_ptr<TraceText> text_in_memory(std::string_view text) {
  return std::make_unique<MemoryText>(text);
}

std::unique_ptr<TraceText> open_trace_text(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw TraceError(path + ": cannot open: " + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  // gzip's magic bytes, whatever the file is called.
  if (::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
    return std::make_unique<GzipText>(fd, path);
  ::close(fd);
  return std::make_unique<MappedText>(path);
}

}  // namespace brickprof
