// The file and memory sinks (see sink.h).
#include "trace/output/sink.h"

#include <cstring>
#include <sstream>

#include "trace/output/atomic_file.h"

namespace brickprof {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

std::string write_file_atomically(const std::string& path,
                                  const std::function<void(std::ostream&)>& fill) {
  try {
    PendingFile file(path);
    if (!file.error().empty()) return file.error();
    FdStreamBuf buffer(file.fd());
    std::ostream out(&buffer);
    fill(out);
    out.flush();
    if (buffer.error() != 0) return path + ": write failed: " + errno_text(buffer.error());
    if (!out) return path + ": write failed";
    return file.commit();
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  } catch (...) {
    return path + ": unknown error while writing";
  }
}

std::string FileSink::where(std::string_view, std::string_view extension) const {
  return prefix_ + std::string(extension);
}

std::string FileSink::emit(std::string_view format, std::string_view extension,
                           const std::function<void(std::ostream&)>& fill) {
  try {
    return write_file_atomically(prefix_ + std::string(extension), fill);
  } catch (...) {
    return std::string(format) + ": out of memory";
  }
}

std::string MemorySink::emit(std::string_view format, std::string_view,
                             const std::function<void(std::ostream&)>& fill) {
  try {
    std::ostringstream out;
    fill(out);
    outputs_[std::string(format)] = std::move(out).str();
    return {};
  } catch (const std::exception& e) {
    return std::string(format) + ": " + e.what();
  } catch (...) {
    return std::string(format) + ": unknown error";
  }
}

const std::string& MemorySink::text(std::string_view format) const {
  static const std::string empty;
  auto it = outputs_.find(format);
  return it == outputs_.end() ? empty : it->second;
}

}  // namespace brickprof
