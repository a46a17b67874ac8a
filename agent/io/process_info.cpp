// Process facts for the trace header (see process_info.h).
#include "agent/io/process_info.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
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

namespace {

struct Launcher {
  const char* name;
  const char* rank;
  const char* local_rank;
  const char* world_size;
  const char* job;
};

// In order: an Open MPI rank under Slurm sees both, and mpirun's are its own.
constexpr Launcher kLaunchers[] = {
    {"open-mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
     "PMIX_NAMESPACE"},
    {"mvapich", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_SIZE", nullptr},
    {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", nullptr},
    {"pmix", "PMIX_RANK", nullptr, nullptr, "PMIX_NAMESPACE"},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_JOB_ID"},
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE", "TORCHELASTIC_RUN_ID"},
};

// A non-negative decimal, or -1.
int64_t number(const char* (*getenv_fn)(const char*), const char* var) {
  const char* v = var ? getenv_fn(var) : nullptr;
  if (!v || !*v) return -1;
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v, &end, 10);
  return end && *end == '\0' && errno == 0 && n >= 0 ? n : -1;
}

}  // namespace

LaunchInfo detect_launch(const char* (*getenv_fn)(const char*)) {
  LaunchInfo info;
  for (const Launcher& l : kLaunchers) {
    const int64_t rank = number(getenv_fn, l.rank);
    if (rank < 0) continue;
    info.launcher = l.name;
    info.rank = rank;
    info.local_rank = number(getenv_fn, l.local_rank);
    info.world_size = std::max<int64_t>(0, number(getenv_fn, l.world_size));
    if (info.world_size <= rank) info.world_size = 0;  // not a size this rank is in
    const char* job = l.job ? getenv_fn(l.job) : nullptr;
    if (job) info.job = job;
    if (info.launcher == "slurm" && !info.job.empty()) {
      if (const char* step = getenv_fn("SLURM_STEP_ID")) info.job += std::string(".") + step;
    }
    break;
  }
  return info;
}

std::string pattern_for_job(const std::string& pattern, int64_t world_size) {
  if (world_size <= 1) return pattern;
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (pattern[i + 1] == 'r') return pattern;
    ++i;  // "%%" and other items
  }
  return pattern + "-r%r";
}

ProcessInfo process_info(int64_t start_ns, int64_t end_ns, CmdlineMode cmdline) {
  ProcessInfo p;
  p.pid = getpid();
  p.ppid = getppid();
  p.program = program_invocation_short_name ? program_invocation_short_name : "";
  p.cmdline = command_line(cmdline);
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) p.host = host;
  const LaunchInfo launch =
      detect_launch([](const char* name) -> const char* { return std::getenv(name); });
  p.launcher = launch.launcher;
  p.job = launch.job;
  p.rank = launch.rank;
  p.local_rank = launch.local_rank;
  p.world_size = launch.world_size;
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
