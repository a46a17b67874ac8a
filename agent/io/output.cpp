// Output paths and writing for the agent (see output.h): each format
// (trace/output/formats.h) written atomically next to the prefix.
#include "agent/io/output.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "agent/io/process_info.h"
#include "trace/model/recorded.h"
#include "trace/output/atomic_file.h"
#include "trace/output/formats.h"
#include "trace/output/output_name.h"
#include "trace/output/sink.h"

namespace brickprof::agent {
namespace {

template <typename Visit>
void each_output_path(const std::vector<std::string>& formats, const std::string& prefix,
                      Visit visit) {
  FileSink sink(prefix);
  for (const std::string& name : formats)
    if (const Format* f = find_format(name)) visit(sink.where(f->name, f->extension));
}

bool xfsz_pending() {
  sigset_t set;
  return sigpending(&set) == 0 && sigismember(&set, SIGXFSZ) == 1;
}

}  // namespace

// The signal a failed write raised is taken back when the hold ends (one
// sent to the process meanwhile would be taken with it).
FileSizeSignalHeld::FileSizeSignalHeld() {
  sigemptyset(&xfsz_);
  sigaddset(&xfsz_, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &xfsz_, &saved_mask_);
  was_pending_ = xfsz_pending();
}

FileSizeSignalHeld::~FileSizeSignalHeld() {
  if (!was_pending_ && xfsz_pending()) {
    const timespec now{0, 0};
    sigtimedwait(&xfsz_, nullptr, &now);
  }
  pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
}

std::string output_prefix(const Config& config, const ProcessInfo& p) {
  // "trace.json" is the prefix "trace"; "runs/" the default names in runs/.
  return expand_output_prefix(pattern_for_job(output_prefix_pattern(config.output), p.world_size),
                              static_cast<long>(p.pid), static_cast<long>(p.rank), p.host,
                              p.program);
}

void list_in_manifest(const std::string& manifest, const std::vector<std::string>& files,
                      bool recorded_nothing) {
  if (manifest.empty() || files.empty()) return;
  std::string lines;
  for (const std::string& file : files) lines += file + '\n';
  lines.append(recorded_nothing ? kManifestNothingRecorded : kManifestRecorded).push_back('\n');
  int fd = ::open(manifest.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  fd = move_above_stdio(fd);  // run ignores lines it did not expect, the program's stdio not
  if (fd < 0) return;         // run is gone, or the name is not its file: nothing to tell
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
