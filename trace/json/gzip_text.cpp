// Inflating a gzip trace on demand (see gzip_text.h).
#include "trace/json/gzip_text.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "trace/json/trace_json.h"

namespace brickprof {
namespace {

constexpr size_t kInputBytes = 1 << 20;
// Inflated per more(): several of the reader's 1 MB batches.
constexpr size_t kChunkBytes = 4 << 20;
// Pages below what the reader consumed go back in steps this large.
constexpr size_t kReleaseStep = 64u << 20;
// Deflate's largest compression ratio (zlib's documented 1032:1), so the
// inflated text always fits the reservation.
constexpr uint64_t kMaxInflation = 1032;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// As much address space as the text may need, within a limit on the
// process's address space (a quarter of it) if there is one.
size_t reservation_for(uint64_t compressed) {
  uint64_t want = compressed * kMaxInflation + kChunkBytes;
  uint64_t cap = uint64_t{1} << 40;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    cap = std::min<uint64_t>(cap, limit.rlim_cur / 4);
  return round_up(static_cast<size_t>(std::min(want, cap)), kChunkBytes);
}

}  // namespace

GzipText::GzipText(int fd, const std::string& path) : fd_(fd) {
  try {
    open(path);
  } catch (...) {
    close_all();  // no destructor runs for an object whose constructor threw
    throw;
  }
}

GzipText::~GzipText() { close_all(); }

void GzipText::open(const std::string& path) {
  std::string why;
  zlib_ = zlib_library(&why);
  if (!zlib_) throw TraceError(path + ": gzip-compressed, but " + why);
  struct stat st {};
  if (::fstat(fd_, &st) == 0) compressed_size_ = static_cast<uint64_t>(st.st_size);
  unsigned char trailer[4];
  if (compressed_size_ >= 4 && ::pread(fd_, trailer, 4, st.st_size - 4) == 4)
    size_mod_4g_ = trailer[0] | trailer[1] << 8 | trailer[2] << 16 | uint32_t{trailer[3]} << 24;
  for (reserved_ = reservation_for(compressed_size_); reserved_ >= kChunkBytes; reserved_ /= 2) {
    void* p =
        ::mmap(nullptr, reserved_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      base_ = static_cast<char*>(p);
      break;
    }
  }
  if (!base_) throw TraceError(path + ": no address space left to inflate it into");
  data_ = base_;
  input_ = std::make_unique<unsigned char[]>(kInputBytes);
  if (zlib_->inflate_init2(&stream_, kGzipWindowBits, ZLIB_VERSION,
                           static_cast<int>(sizeof(z_stream))) != Z_OK)
    throw TraceError(path + ": zlib: cannot start decompression");
  stream_open_ = true;
}

void GzipText::close_all() {
  if (stream_open_) zlib_->inflate_end(&stream_);
  stream_open_ = false;
  if (base_) ::munmap(base_, reserved_);
  base_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool GzipText::fail(std::string why) {
  if (error_.empty()) error_ = std::move(why);
  return false;
}

bool GzipText::read_input() {
  ssize_t n;
  do {
    n = ::read(fd_, input_.get(), kInputBytes);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return fail(std::string("read error: ") + std::strerror(errno));
  stream_.next_in = input_.get();
  stream_.avail_in = static_cast<uInt>(n);
  return n > 0;
}

bool GzipText::more() {
  if (ended_ || !error_.empty()) return false;
  const size_t size = size_.load(std::memory_order_relaxed);
  if (size == reserved_)
    return fail("inflates to more than the " + std::to_string(reserved_ >> 20) +
                " MB of address space this process could reserve; decompress it first");
  const size_t target = std::min(size + kChunkBytes, reserved_);
  if (target > writable_) {
    const size_t upto = std::min(round_up(target, kChunkBytes), reserved_);
    if (::mprotect(base_ + writable_, upto - writable_, PROT_READ | PROT_WRITE) != 0)
      return fail(std::string("out of memory while inflating: ") + std::strerror(errno));
    writable_ = upto;
  }
  stream_.next_out = reinterpret_cast<Bytef*>(base_ + size);
  stream_.avail_out = static_cast<uInt>(target - size);
  bool failed = false;
  while (stream_.avail_out > 0) {
    if (stream_.avail_in == 0 && !read_input()) {
      failed =
          error_.empty() ? !fail("truncated gzip data (the file ends inside the stream)") : true;
      break;
    }
    const int status = zlib_->inflate(&stream_, Z_NO_FLUSH);
    if (status == Z_STREAM_END) {
      // Another gzip member may follow (concatenated .gz files are one).
      if (stream_.avail_in == 0 && !read_input()) {
        ended_ = error_.empty();
        failed = !ended_;
        break;
      }
      // inflate checks the rest of the next member's header.
      if (stream_.next_in[0] == 0x1f && zlib_->inflate_reset(&stream_) == Z_OK) continue;
      failed = !fail("data after the end of the gzip stream");
      break;
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      failed = !fail(std::string("corrupt gzip data") +
                     (stream_.msg ? std::string(" (") + stream_.msg + ")" : std::string()));
      break;
    }
  }
  const size_t grown = static_cast<size_t>(reinterpret_cast<char*>(stream_.next_out) - base_);
  size_.store(grown, std::memory_order_release);
  // What was inflated before a failure is still handed out; the reader
  // stops at the truncation and reports error().
  return grown > size || (!failed && !ended_);
}

size_t GzipText::expected_size() const {
  uint64_t estimate = size_mod_4g_;
  while (estimate < compressed_size_) estimate += uint64_t{1} << 32;
  return std::max<size_t>(static_cast<size_t>(estimate), text().size());
}

void GzipText::release(size_t offset) {
  const size_t upto = offset / kReleaseStep * kReleaseStep;
  size_t done = released_.load(std::memory_order_relaxed);
  if (upto <= done) return;
  ::madvise(base_ + done, upto - done, MADV_DONTNEED);
  released_.store(upto, std::memory_order_relaxed);
}

}  // namespace brickprof
