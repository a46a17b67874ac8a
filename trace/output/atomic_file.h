// A file that appears whole or not at all, written safely in a folder other
// users may write to: the bytes go to a temporary file created exclusively
// under a random name and are written through the descriptor that create
// returned (never reopened by name), which is renamed into place at the end.
// write_file_atomically (sink.h) is built on these.
#pragma once

#include <memory>
#include <streambuf>
#include <string>

namespace brickprof {

// `<path>.tmp.<16 random hex digits>`, created with O_EXCL and O_NOFOLLOW,
// mode 0666 less the umask, on a descriptor of 3 or more (a program whose
// stdout is closed may write to descriptor 1 at any moment). Removed by the
// destructor unless commit() renamed it into place; until then
// remove_unfinished_files() can remove it from a signal handler.
class PendingFile {
 public:
  explicit PendingFile(const std::string& path);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

  // "" when the file was created, else one line: the path and why not.
  const std::string& error() const { return error_; }
  int fd() const { return fd_; }
  // Closes the file and renames it to the path. "" or one error line.
  std::string commit();

 private:
  void discard();

  std::string path_, temp_, error_;
  int fd_ = -1;
  int slot_ = -1;  // in the table remove_unfinished_files() reads
};

// Removes every PendingFile of this process not yet committed: their writes
// are being cut short (the process dies, or execs, past a deadline). Only
// async-signal-safe calls; a file another thread then commits fails to
// rename.
void remove_unfinished_files();

// While it lives, descriptors 0, 1 and 2 that are closed are held (on
// /dev/null), so a file opened meanwhile gets 3 or above. A program with a
// closed stdout may write to descriptor 1 at any moment: a file of ours that
// took it would get those bytes (moving it afterwards races with writes
// already under way). The program's writes in that window go to /dev/null
// instead of failing.
class StdioSlotsHeld {
 public:
  StdioSlotsHeld();
  ~StdioSlotsHeld();
  StdioSlotsHeld(const StdioSlotsHeld&) = delete;
  StdioSlotsHeld& operator=(const StdioSlotsHeld&) = delete;

 private:
  int held_[3] = {-1, -1, -1};
};

// `fd` itself when it is 3 or more; else a copy at 3 or above, `fd` closed
// (-1 and errno when no copy can be made). A program whose stdout or stderr
// is closed writes to 1 or 2 at any moment: a file of ours must not be there.
int move_above_stdio(int fd);

// Writes to a descriptor with write(2) in blocks of 1 MiB (larger pieces go
// straight through), retrying short and interrupted writes. After a failed
// write every later one fails too, and error() holds its errno.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd);
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize n) override;
  int sync() override;

 private:
  bool drain();
  bool write_all(const char* data, size_t n);

  int fd_;
  int error_ = 0;
  std::unique_ptr<char[]> buffer_;
};

}  // namespace brickprof
