// Output paths and writing for the agent (see output.h): the analysis
// library's exporters, each written atomically next to the prefix.
#include "agent/output.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "agent/process_info.h"
#include "analysis/sink.h"

namespace brickprof::agent {
namespace {

// A write past RLIMIT_FSIZE raises SIGXFSZ, whose default action kills the
// process; the program never wrote that file. Held on the writing thread
// while the agent writes, so its write fails with EFBIG instead, and the
// signal that write raised is taken back (one sent to the process meanwhile
// would be taken with it).
class FileSizeSignalHeld {
 public:
  FileSizeSignalHeld() {
    sigemptyset(&xfsz_);
    sigaddset(&xfsz_, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz_, &saved_mask_);
    was_pending_ = pending();
  }
  ~FileSizeSignalHeld() {
    if (!was_pending_ && pending()) {
      const timespec now{0, 0};
      sigtimedwait(&xfsz_, nullptr, &now);
    }
    pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
  }
  FileSizeSignalHeld(const FileSizeSignalHeld&) = delete;
  FileSizeSignalHeld& operator=(const FileSizeSignalHeld&) = delete;

 private:
  static bool pending() {
    sigset_t set;
    return sigpending(&set) == 0 && sigismember(&set, SIGXFSZ) == 1;
  }

  sigset_t xfsz_, saved_mask_;
  bool was_pending_ = false;
};

template <typename Visit>
void each_output_path(const std::vector<std::string>& formats, const std::string& prefix,
                      Visit visit) {
  FileSink sink(prefix);
  for (const std::string& name : formats)
    if (std::unique_ptr<Exporter> exporter = make_exporter(name)) visit(sink.path_for(*exporter));
}

}  // namespace

std::string output_prefix(const Config& config, const ProcessInfo& p) {
  return expand_output_prefix(pattern_for_job(config.output, p.world_size),
                              static_cast<long>(p.pid), static_cast<long>(p.rank), p.host,
                              p.program);
}

WrittenOutputs write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                             const std::string& prefix) {
  WrittenOutputs written;
  try {
    std::vector<std::string> ordered = formats;
    std::stable_partition(ordered.begin(), ordered.end(),
                          [](const std::string& name) { return name == "json"; });
    FileSink sink(prefix);
    FileSizeSignalHeld held;
    for (const std::string& name : ordered) {
      std::unique_ptr<Exporter> exporter = make_exporter(name);
      if (!exporter) {
        written.failures.push_back(prefix + ": unknown output format '" + name + "'");
        continue;
      }
      std::string error = sink.emit(*exporter, trace);
      if (error.empty())
        written.files.push_back(sink.path_for(*exporter));
      else
        written.failures.push_back(std::move(error));
    }
  } catch (...) {
    // Only allocation can fail here; keep whatever was reported so far.
    try {
      written.failures.push_back(prefix + ".*: out of memory while writing");
    } catch (...) {
    }
  }
  return written;
}

void list_in_manifest(const std::string& manifest, const std::vector<std::string>& files) {
  if (manifest.empty() || files.empty()) return;
  std::string lines;
  for (const std::string& file : files) lines += file + '\n';
  int fd = ::open(manifest.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;  // run is gone, or the name is not its file: nothing to tell
  if (fd < 3) {        // never the program's stdio (run ignores lines it did not expect)
    int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    fd = moved;
    if (fd < 0) return;
  }
  ssize_t ignored = ::write(fd, lines.data(), lines.size());
  (void)ignored;
  ::close(fd);
}

bool outputs_exist(const std::vector<std::string>& formats, const std::string& prefix) {
  bool any = false;
  each_output_path(formats, prefix,
                   [&](const std::string& path) { any |= access(path.c_str(), F_OK) == 0; });
  return any;
}

void remove_outputs(const std::vector<std::string>& formats, const std::string& prefix) {
  each_output_path(formats, prefix, [](const std::string& path) { std::remove(path.c_str()); });
}

}  // namespace brickprof::agent
