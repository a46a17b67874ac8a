// Where and how the agent writes its outputs at exit, and where it lists
// them for `brickprof run`.
#pragma once

#include <signal.h>

#include <string>
#include <vector>

#include "agent/io/config.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

// BRICKPROF_OUTPUT with %p %r %h %n expanded.
std::string output_prefix(const Config& config, const ProcessInfo& process);

// While one lives, a file this thread writes past RLIMIT_FSIZE fails with
// EFBIG instead of its SIGXFSZ killing the host (which never wrote it).
class FileSizeSignalHeld {
 public:
  FileSizeSignalHeld();
  ~FileSizeSignalHeld();
  FileSizeSignalHeld(const FileSizeSignalHeld&) = delete;
  FileSizeSignalHeld& operator=(const FileSizeSignalHeld&) = delete;

 private:
  sigset_t xfsz_, saved_mask_;
  bool was_pending_ = false;
};
// Appends `files`, a line each, to `brickprof run`'s manifest (one O_APPEND
// write, so processes writing at once do not mix), then whether the trace
// in them holds anything (kManifestRecorded or kManifestNothingRecorded);
// nothing if there is no manifest.
void list_in_manifest(const std::string& manifest, const std::vector<std::string>& files,
                      bool recorded_nothing = false);
// Whether any of those files is there already.
bool outputs_exist(const std::vector<std::string>& formats, const std::string& prefix);
// Removes them (a trace that a later, larger one supersedes).
void remove_outputs(const std::vector<std::string>& formats, const std::string& prefix);

}  // namespace brickprof::agent
