// Where and how the agent writes its outputs at exit, and where it lists
// them for `brickprof run`.
#pragma once

#include <string>
#include <vector>

#include "agent/config.h"
#include "analysis/trace.h"

namespace brickprof::agent {

// BRICKPROF_OUTPUT with %p %r %h %n expanded.
std::string output_prefix(const Config& config, const ProcessInfo& process);

struct WrittenOutputs {
  std::vector<std::string> files;     // the paths written, in order
  std::vector<std::string> failures;  // one line per file not written, naming it
};
// Writes each format to <prefix><extension>, atomically, the JSON first:
// every command reads it, and on a disk about to fill it gets the room.
// Never throws; a file past RLIMIT_FSIZE fails instead of killing the host.
WrittenOutputs write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                             const std::string& prefix);
// Appends `files`, a line each, to `brickprof run`'s manifest (one O_APPEND
// write, so processes writing at once do not mix); nothing if there is none.
void list_in_manifest(const std::string& manifest, const std::vector<std::string>& files);
// Whether any of those files is there already.
bool outputs_exist(const std::vector<std::string>& formats, const std::string& prefix);
// Removes them (a trace that a later, larger one supersedes).
void remove_outputs(const std::vector<std::string>& formats, const std::string& prefix);

}  // namespace brickprof::agent
