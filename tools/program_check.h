// What `brickprof run` can tell before it starts a program about whether
// the agent will load into it: the loader ignores LD_PRELOAD for a static
// program (no loader runs) and for a set-user-ID, set-group-ID or
// capability-raising one (secure-execution mode: ld.so(8), "Secure-execution
// mode"), and cannot load a 64-bit agent into a 32-bit program; and whether
// the agent file is a shared library at all.
#pragma once

#include <string>

namespace brickprof::cli {

// "" when the agent can be preloaded into `program` (as execvp finds it,
// and through a "#!" script to its interpreter), else why not, e.g.
// "/usr/bin/ping is set-user-ID: the loader ignores LD_PRELOAD for it".
// A program that cannot be found or read is left to exec to report.
std::string preload_problem(const std::string& program);

// "" when `agent` is a 64-bit ELF shared library, else what it is instead.
std::string agent_file_problem(const std::string& agent);

}  // namespace brickprof::cli
