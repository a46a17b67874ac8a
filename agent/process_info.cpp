// Process facts for the trace header (see process_info.h).
#include "agent/process_info.h"

#include <dirent.h>
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

// The threads alive now: only they have a name to read (a trace may name
// a hundred thousand that have exited).
std::set<uint32_t> live_threads() {
  std::set<uint32_t> tids;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* e = readdir(dir))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
        tids.insert(static_cast<uint32_t>(std::strtoul(e->d_name, nullptr, 10)));
    closedir(dir);
  }
  return tids;
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

ProcessInfo process_info(int64_t start_ns, int64_t end_ns) {
  ProcessInfo p;
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
  return p;
}

std::vector<ThreadInfo> thread_infos(const std::set<uint32_t>& tids,
                                     const std::map<uint32_t, std::string>& noted_names) {
  std::vector<ThreadInfo> threads;
  const std::set<uint32_t> live = live_threads();
  for (uint32_t tid : tids) {
    std::string name;
    if (live.count(tid))
      name = trim_newline(read_small_file("/proc/self/task/" + std::to_string(tid) + "/comm"));
    if (name.empty()) {  // it has exited
      auto noted = noted_names.find(tid);
      name = noted != noted_names.end() && !noted->second.empty() ? noted->second
                                                                  : "thread " + std::to_string(tid);
    }
    threads.push_back(ThreadInfo{tid, name});
  }
  return threads;
}

void fill_process_info(Trace& trace, int64_t start_ns, int64_t end_ns,
                       const std::map<uint32_t, std::string>& noted_names) {
  trace.process = process_info(start_ns, end_ns);
  std::set<uint32_t> tids;
  for (const Node& n : trace.nodes) tids.insert(n.thread);
  std::vector<ThreadInfo> threads = thread_infos(tids, noted_names);
  trace.threads.insert(trace.threads.end(), threads.begin(), threads.end());
}

}  // namespace brickprof::agent
