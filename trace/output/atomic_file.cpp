// Temporary files under unguessable names and the stream buffer that writes
// them (see atomic_file.h).
#include "trace/output/atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>

namespace brickprof {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

// The temporary files being written now, for remove_unfinished_files(): a
// fixed table a signal handler can read (a path that does not fit, or a
// ninth file at once, goes unlisted: its write is simply not cleaned up).
struct Slot {
  std::atomic<int> state{0};  // kFree, kFilling (ours, not yet readable), kListed
  char path[PATH_MAX] = {};
};
constexpr int kFree = 0, kFilling = 1, kListed = 2;
constinit Slot g_slots[8];

int list_unfinished(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < static_cast<int>(std::size(g_slots)); ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kListed, std::memory_order_release);
    return i;
  }
  return -1;
}

void unlist(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree, std::memory_order_release);
}

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// 64 bits from the kernel's generator; if it is not ready (early boot),
// from what differs between processes and calls.
std::string random_hex() {
  uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bits)) {
    static std::atomic<uint64_t> calls{0};
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    bits = mix(static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec) ^
           mix(static_cast<uint64_t>(getpid()) << 32 | calls++) ^
           mix(reinterpret_cast<uintptr_t>(&now));
  }
  static const char kDigits[] = "0123456789abcdef";
  std::string hex(16, '0');
  for (char& c : hex) {
    c = kDigits[bits & 15];
    bits >>= 4;
  }
  return hex;
}

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

PendingFile::PendingFile(const std::string& path) : path_(path) {
  // Signals are held off from creating the file to listing it: the agent's
  // write deadline (SIGALRM) and its dump handlers (SIGTERM, SIGINT, ...)
  // remove the listed files, and firing in between left the new one behind.
  // Faults stay deliverable: they are this thread's own.
  sigset_t held, saved;
  sigfillset(&held);
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) sigdelset(&held, fault);
  pthread_sigmask(SIG_BLOCK, &held, &saved);
  // O_EXCL and O_NOFOLLOW: never through someone else's file or link; a
  // name someone else took is tried again under another.
  StdioSlotsHeld stdio_held;
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    temp_ = path + ".tmp." + random_hex();
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  const int open_errno = errno;
  if (fd_ >= 0) slot_ = list_unfinished(temp_);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (fd_ < 0) {
    error_ = path + ": cannot create: " + errno_text(open_errno);
    return;
  }
  if (fd_ < 3) {
    // Whatever another thread wrote to it before the move is cut off again.
    fd_ = move_above_stdio(fd_);
    if (fd_ < 0 || ::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) {
      error_ = path + ": cannot create: " + errno_text(errno);
      discard();
    }
  }
}

StdioSlotsHeld::StdioSlotsHeld() {
  for (int& slot : held_) {
    const int fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    if (fd > 2) {  // 0, 1 and 2 are all taken
      ::close(fd);
      return;
    }
    slot = fd;
  }
}

StdioSlotsHeld::~StdioSlotsHeld() {
  for (int fd : held_)
    if (fd >= 0) ::close(fd);
}

int move_above_stdio(int fd) {
  if (fd < 0 || fd >= 3) return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  int err = errno;
  ::close(fd);
  errno = err;
  return moved;
}

PendingFile::~PendingFile() { discard(); }

void PendingFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  unlist(slot_);
  slot_ = -1;
}

std::string PendingFile::commit() {
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {  // some file systems report a failed write only here
    int err = errno;
    discard();
    return path_ + ": write failed: " + errno_text(err);
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    discard();
    return path_ + ": cannot rename into place: " + errno_text(err);
  }
  temp_.clear();
  unlist(slot_);
  slot_ = -1;
  return {};
}

void remove_unfinished_files() {
  for (Slot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == kListed) ::unlink(slot.path);
}

FdStreamBuf::FdStreamBuf(int fd) : fd_(fd), buffer_(new char[kBufferBytes]) {
  setp(buffer_.get(), buffer_.get() + kBufferBytes);
}

bool FdStreamBuf::write_all(const char* data, size_t n) {
  while (n > 0 && error_ == 0) {
    ssize_t written = ::write(fd_, data, n);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      error_ = written < 0 ? errno : EIO;
      break;
    }
    data += written;
    n -= static_cast<size_t>(written);
  }
  return error_ == 0;
}

bool FdStreamBuf::drain() {
  bool ok = write_all(pbase(), static_cast<size_t>(pptr() - pbase()));
  setp(buffer_.get(), buffer_.get() + kBufferBytes);
  return ok;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize FdStreamBuf::xsputn(const char* data, std::streamsize n) {
  const size_t size = static_cast<size_t>(n);
  if (size <= static_cast<size_t>(epptr() - pptr())) {
    std::memcpy(pptr(), data, size);
    pbump(static_cast<int>(n));
    return n;
  }
  if (!drain()) return 0;
  if (size >= kBufferBytes) return write_all(data, size) ? n : 0;
  std::memcpy(pptr(), data, size);
  pbump(static_cast<int>(n));
  return n;
}

int FdStreamBuf::sync() { return drain() ? 0 : -1; }

}  // namespace brickprof
