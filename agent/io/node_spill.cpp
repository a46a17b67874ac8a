// The exit write's node spill file (see node_spill.h).
#include "agent/io/node_spill.h"

#include "trace/output/atomic_file.h"

#include <fcntl.h>
#include <sys/statvfs.h>
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
  StdioSlotsHeld stdio_held;
  int fd = -1;
#ifdef O_TMPFILE
  fd = move_above_stdio(::open(dir.c_str(), O_RDWR | O_TMPFILE | O_CLOEXEC, 0600));
  if (fd >= 0) return fd;
#endif
  std::string pattern = dir + "/.brickprof-spill-XXXXXX";
  fd = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(pattern.c_str());
  return move_above_stdio(fd);
}

// All `bytes` through `io` (pread or pwrite), retrying short and
// interrupted calls; false at an error or the end of the file.
template <typename Char, typename Io>
bool transfer_all(Io io, int fd, Char* data, size_t bytes, off_t at) {
  while (bytes > 0) {
    ssize_t n = io(fd, data, bytes, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    bytes -= static_cast<size_t>(n);
    at += n;
  }
  return true;
}

bool write_all(int fd, const char* data, size_t bytes, off_t at) {
  return transfer_all(::pwrite, fd, data, bytes, at);
}

bool read_all(int fd, char* data, size_t bytes, off_t at) {
  return transfer_all(::pread, fd, data, bytes, at);
}

}  // namespace

NodeSpill::~NodeSpill() {
  if (fd_ >= 0) ::close(fd_);
}

// Room on the disk for the spill and the trace after it: the JSON alone
// takes several times the spill's 48 bytes a node, and a spill that fills
// the disk would cost the trace it serves.
static bool room_for_trace_after(int fd, size_t spill_bytes) {
  struct statvfs disk;
  if (fstatvfs(fd, &disk) != 0) return true;  // unknown: the writes will say
  const unsigned long long free_bytes =
      static_cast<unsigned long long>(disk.f_bavail) * disk.f_frsize;
  return free_bytes / 4 >= spill_bytes;
}

bool NodeSpill::open(size_t count, const std::string& dir, std::string* note) {
  count_ = count;
  const size_t bytes = count * sizeof(SpilledNode);
  if (bytes <= kInMemoryBytes) return hold_in_memory();
  const std::string where = dir.empty() ? "." : dir;
  fd_ = unnamed_file(where);
  // The whole file's room up front: a disk that fills, or RLIMIT_FSIZE,
  // then costs the memory fallback, not the trace.
  int error = fd_ < 0 ? errno
              : !room_for_trace_after(fd_, bytes)
                  ? ENOSPC
                  : posix_fallocate(fd_, 0, static_cast<off_t>(bytes));
  if (error == 0) {
    window_.resize(kWindow);
    return true;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  *note = "no room for the trace write's temporary file in '" + where + "' (" +
          std::strerror(error) + "): its nodes were held in memory";
  return hold_in_memory();
}

bool NodeSpill::hold_in_memory() {
  try {
    memory_.resize(count_);
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
