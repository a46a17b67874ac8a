// Process facts for the trace header (see process_info.h).
#include "agent/process_info.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace brickprof::agent {
namespace {

std::string read_small_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim_newline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

int64_t detect_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
                          "RANK", "MV2_COMM_WORLD_RANK"}) {
    const char* v = std::getenv(var);
    if (v && *v) {
      char* end = nullptr;
      long r = std::strtol(v, &end, 10);
      if (end && *end == '\0' && r >= 0) return r;
    }
  }
  return -1;
}

void fill_process_info(Trace& trace, int64_t start_ns, int64_t end_ns,
                       const std::map<uint32_t, std::string>& noted_names) {
  ProcessInfo& p = trace.process;
  p.pid = getpid();
  p.ppid = getppid();
  p.program = program_invocation_short_name ? program_invocation_short_name : "";
  std::string cmdline = read_small_file("/proc/self/cmdline");
  for (char& c : cmdline)
    if (c == '\0') c = ' ';
  p.cmdline = trim_newline(cmdline);
  while (!p.cmdline.empty() && p.cmdline.back() == ' ') p.cmdline.pop_back();
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) p.host = host;
  p.rank = detect_rank();
  p.start_ns = start_ns;
  p.end_ns = end_ns;

  std::set<uint32_t> tids;
  for (const Node& n : trace.nodes) tids.insert(n.thread);
  for (uint32_t tid : tids) {
    std::string name = trim_newline(
        read_small_file("/proc/self/task/" + std::to_string(tid) + "/comm"));
    if (name.empty()) {  // it has exited
      auto noted = noted_names.find(tid);
      name = noted != noted_names.end() && !noted->second.empty() ? noted->second
                                                                  : "thread " + std::to_string(tid);
    }
    trace.threads.push_back(ThreadInfo{tid, name});
  }
}

}  // namespace brickprof::agent
