// Process facts for the trace header (see process_info.h).
#include "agent/process_info.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
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

// /proc/self/cmdline holds the arguments each followed by a NUL.
std::string command_line(CmdlineMode mode) {
  if (mode == CmdlineMode::kNone) return {};
  std::string raw = read_small_file("/proc/self/cmdline");
  if (mode == CmdlineMode::kProgram) return raw.substr(0, raw.find('\0'));
  for (char& c : raw)
    if (c == '\0') c = ' ';
  std::string line = trim_newline(raw);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// Whether `maps` (a /proc/PID/maps) maps the file with that device and inode.
bool maps_file(const std::string& maps, dev_t device, ino_t inode) {
  std::ifstream in(maps);
  for (std::string line; std::getline(in, line);) {
    unsigned major_id = 0, minor_id = 0;
    uintmax_t mapped_inode = 0;
    // address perms offset dev inode path
    const int fields =
        std::sscanf(line.c_str(), "%*s %*s %*s %x:%x %ju", &major_id, &minor_id, &mapped_inode);
    if (fields == 3 && mapped_inode == inode && makedev(major_id, minor_id) == device) return true;
  }
  return false;
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

bool is_started_process(long run_pid, const void* agent_code) {
  if (run_pid > 0) return getpid() == run_pid;
  Dl_info agent;
  struct stat file;
  if (!dladdr(agent_code, &agent) || !agent.dli_fname || stat(agent.dli_fname, &file) != 0)
    return true;
  return !maps_file("/proc/" + std::to_string(getppid()) + "/maps", file.st_dev, file.st_ino);
}

int64_t detect_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK",
                          "MV2_COMM_WORLD_RANK"}) {
    const char* v = std::getenv(var);
    if (v && *v) {
      char* end = nullptr;
      long r = std::strtol(v, &end, 10);
      if (end && *end == '\0' && r >= 0) return r;
    }
  }
  return -1;
}

ProcessInfo process_info(int64_t start_ns, int64_t end_ns, CmdlineMode cmdline) {
  ProcessInfo p;
  p.pid = getpid();
  p.ppid = getppid();
  p.program = program_invocation_short_name ? program_invocation_short_name : "";
  p.cmdline = command_line(cmdline);
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
                       const std::map<uint32_t, std::string>& noted_names, CmdlineMode cmdline) {
  trace.process = process_info(start_ns, end_ns, cmdline);
  std::set<uint32_t> tids;
  for (const Node& n : trace.nodes) tids.insert(n.thread);
  std::vector<ThreadInfo> threads = thread_infos(tids, noted_names);
  trace.threads.insert(trace.threads.end(), threads.begin(), threads.end());
}

}  // namespace brickprof::agent
