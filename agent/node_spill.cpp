// The exit write's node spill file (see node_spill.h).
#include "agent/node_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace brickprof::agent {
namespace {

// An unlinked file in `dir`: O_TMPFILE where the file system has it, else
// a named one removed at once. -1 if neither works.
int unnamed_file(const std::string& dir) {
  int fd = -1;
#ifdef O_TMPFILE
  fd = ::open(dir.c_str(), O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string pattern = dir + "/.brickprof-spill-XXXXXX";
  fd = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(pattern.c_str());
  return fd;
}

bool write_all(int fd, const char* data, size_t bytes, off_t at) {
  while (bytes > 0) {
    ssize_t n = ::pwrite(fd, data, bytes, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    bytes -= static_cast<size_t>(n);
    at += n;
  }
  return true;
}

bool read_all(int fd, char* data, size_t bytes, off_t at) {
  while (bytes > 0) {
    ssize_t n = ::pread(fd, data, bytes, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    bytes -= static_cast<size_t>(n);
    at += n;
  }
  return true;
}

}  // namespace

NodeSpill::~NodeSpill() {
  if (fd_ >= 0) ::close(fd_);
}

bool NodeSpill::open(size_t count, const std::string& dir, std::string* note) {
  count_ = count;
  if (count == 0) return true;
  fd_ = unnamed_file(dir.empty() ? "." : dir);
  if (fd_ >= 0) {
    window_.resize(kWindow);
    return true;
  }
  *note = "no temporary file for the trace write in '" + dir + "' (" + std::strerror(errno) +
          "): its nodes were held in memory";
  try {
    memory_.resize(count);
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

void NodeSpill::write_slots(size_t first, const SpilledNode* nodes, size_t n) {
  if (!write_all(fd_, reinterpret_cast<const char*>(nodes), n * sizeof(SpilledNode),
                 static_cast<off_t>(first * sizeof(SpilledNode))))
    failed_ = true;
}

// Writes the slots written since the last flush, the gaps between them
// included: a gap is a node still open, written alone when it closes.
void NodeSpill::flush_window() {
  if (dirty_begin_ < dirty_end_)
    write_slots(window_first_ + dirty_begin_, window_.data() + dirty_begin_,
                dirty_end_ - dirty_begin_);
  dirty_begin_ = SIZE_MAX;
  dirty_end_ = 0;
}

void NodeSpill::put(uint32_t id, const SpilledNode& node) {
  if (fd_ < 0) {
    memory_[id] = node;
    return;
  }
  if (id < window_first_) {  // closed after its window was written
    write_slots(id, &node, 1);
    return;
  }
  if (id >= window_first_ + kWindow) {
    flush_window();
    window_first_ = id - id % kWindow;  // windows only move forward
  }
  const size_t slot = id - window_first_;
  window_[slot] = node;
  dirty_begin_ = std::min(dirty_begin_, slot);
  dirty_end_ = std::max(dirty_end_, slot + 1);
}

void NodeSpill::finish_writes() {
  if (fd_ >= 0) flush_window();
  if (failed_) throw std::runtime_error("the node spill file could not be written");
}

void NodeSpill::load(size_t first) {
  if (block_first_ == first) return;
  const size_t n = std::min(kBlock, count_ - first);
  block_.resize(n);
  if (fd_ < 0) {
    std::memcpy(block_.data(), memory_.data() + first, n * sizeof(SpilledNode));
  } else if (!read_all(fd_, reinterpret_cast<char*>(block_.data()), n * sizeof(SpilledNode),
                       static_cast<off_t>(first * sizeof(SpilledNode)))) {
    throw std::runtime_error("the node spill file could not be read");
  }
  block_first_ = first;
}

SpilledNode NodeSpill::get(uint32_t id) {
  load(id - id % kBlock);
  return block_[id % kBlock];
}

}  // namespace brickprof::agent
