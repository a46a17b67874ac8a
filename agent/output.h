// Where and how the agent writes its outputs at exit.
#pragma once

#include <string>
#include <vector>

#include "agent/config.h"
#include "analysis/trace.h"

namespace brickprof::agent {

// BRICKPROF_OUTPUT with %p %r %h %n expanded.
std::string output_prefix(const Config& config, const ProcessInfo& process);
// Writes each format to <prefix><extension>, atomically; returns one message
// per failure (never throws).
std::vector<std::string> write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                                       const std::string& prefix);
// Whether any of those files is there already.
bool outputs_exist(const std::vector<std::string>& formats, const std::string& prefix);
// Removes them (a trace that a later, larger one supersedes).
void remove_outputs(const std::vector<std::string>& formats, const std::string& prefix);

}  // namespace brickprof::agent
