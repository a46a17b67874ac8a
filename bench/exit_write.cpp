// What the agent's exit write costs: a child process fills the event buffer
// with a realistic mix (scopes, layers, bricks, NVTX push/pop and start/end
// ranges, and in `gpu` mode kernel launches on the fake driver and fake
// CUPTI) and returns from main; the agent then writes its trace. The parent
// times that write (from the child's last line to its exit: wall time, and
// CPU time, which a loaded machine disturbs less), reads the child's peak
// resident memory (wait4's ru_maxrss) and its resident memory just before
// the write, and sizes the outputs. Several agents (comma-separated, e.g.
// a build before and after a change) run in alternation, round after
// round, and each one's medians are printed.
//   exit_write AGENT[,AGENT...] FAKE_CUDA_DIR [cpu|gpu] [steps] [buffer_mb] [formats] [rounds]
//   exit_write --child cpu|gpu STEPS     (the workload; run by the parent)
#include <brickprof/brickprof.h>
#include <cuda.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

namespace {

// A decode step is ~1 KB of events (CPU mode): 260k steps overfill the
// default 256 MB buffer a little, so it ends full, as a long run would.
constexpr long kDefaultSteps = 260'000;
constexpr int kLayers = 4;

const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry _Z7rmsnormPf(\n\t.param .u64 out\n)\n{\n\tret;\n}\n\n"
    ".visible .entry _Z4gemvPf(\n\t.param .u64 out\n)\n{\n\tret;\n}\n";

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// User + system CPU time, microseconds.
int64_t cpu_us(const rusage& u) {
  return (int64_t{u.ru_utime.tv_sec} + u.ru_stime.tv_sec) * 1'000'000 + u.ru_utime.tv_usec +
         u.ru_stime.tv_usec;
}

// VmRSS of this process, kB.
long resident_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.compare(0, 6, "VmRSS:") == 0) return std::atol(line.c_str() + 6);
  return -1;
}

struct Gpu {
  CUfunction rmsnorm = nullptr, gemv = nullptr;
  CUdeviceptr buffer = 0;
  bool start() {
    CUdevice device;
    CUcontext ctx;
    CUmodule module;
    return cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&device, 0) == CUDA_SUCCESS &&
           cuCtxCreate(&ctx, nullptr, 0, device) == CUDA_SUCCESS &&
           cuModuleLoadData(&module, kPtx) == CUDA_SUCCESS &&
           cuModuleGetFunction(&rmsnorm, module, "_Z7rmsnormPf") == CUDA_SUCCESS &&
           cuModuleGetFunction(&gemv, module, "_Z4gemvPf") == CUDA_SUCCESS &&
           cuMemAlloc(&buffer, 1 << 20) == CUDA_SUCCESS;
  }
  void launch(CUfunction f, unsigned grid) {
    void* args[] = {&buffer};
    cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
  }
};

// Events a step asks the recorder for: the step's scope and NVTX range
// (start, end), and per layer six push/pop pairs, plus a CUDA call per
// launch in gpu mode.
long events_per_step(bool gpu_mode) { return 4 + kLayers * (12 + (gpu_mode ? 2 : 0)); }

int child(bool gpu_mode, long steps) {
  Gpu gpu;
  if (gpu_mode && !gpu.start()) {
    std::fprintf(stderr, "exit_write: the fake driver refused to start\n");
    return 1;
  }
  for (long step = 0; step < steps; ++step) {
    BRICKPROF_SCOPE("decode token");
    nvtxRangeId_t load = nvtxRangeStartA("prefetch");
    for (int layer = 0; layer < kLayers; ++layer) {
      BRICKPROF_LAYER(layer);
      {
        BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
        if (gpu_mode) gpu.launch(gpu.rmsnorm, 16);
      }
      nvtxRangePushA("attention");
      {
        BRICKPROF_BRICK(BRICKPROF_BRICK_QKV_PROJECTION, 3 * 4096);
        if (gpu_mode) gpu.launch(gpu.gemv, 96);
      }
      nvtxRangePop();
      {
        BRICKPROF_BRICK(BRICKPROF_BRICK_GATE_PROJECTION, 11008);
        BRICKPROF_SCOPE("dequantize");
      }
    }
    nvtxRangeEnd(load);
  }
  if (gpu_mode) cuCtxSynchronize();
  // The parent's clock starts here: what follows is the agent's exit write.
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  std::fprintf(stderr, "%lld %ld %lld %ld\n", static_cast<long long>(now_ns()), resident_kb(),
               static_cast<long long>(cpu_us(self)), steps * events_per_step(gpu_mode));
  return 0;
}

off_t file_size(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

// Counts "\"id\":" in the JSON trace: one per node.
long count_nodes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string chunk(1 << 20, '\0');
  const std::string key = "{\"id\":";
  long count = 0;
  std::string carry;
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    std::string text = carry + chunk.substr(0, static_cast<size_t>(in.gcount()));
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) ++count;
    carry = text.size() >= key.size() ? text.substr(text.size() - key.size() + 1) : text;
  }
  return count;
}

// diagnostics.dropped_events, from the head of the JSON trace.
long dropped_events(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(1 << 16, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  size_t at = head.find("\"dropped_events\":");
  return at == std::string::npos ? 0 : std::atol(head.c_str() + at + 17);
}

struct Outcome {
  double before_mb = 0, peak_mb = 0, wall_s = 0, cpu_s = 0, json_mb = 0, perfetto_mb = 0,
         all_mb = 0;
  double nodes = 0, events = 0;  // events: recorded (asked for, less the dropped)
  // Per second of wall and of CPU time (taken per round: what is kept can
  // differ from round to round when GPU records race events for the cap).
  double events_wall = 0, events_cpu = 0, nodes_wall = 0, nodes_cpu = 0;
  double json_wall = 0, json_cpu = 0;
};

struct Setup {
  std::string self, fake, mode, buffer_mb, formats;
  long steps;
};

// One child under `agent`; false (said on stderr) if it failed.
bool run_once(const Setup& s, const std::string& agent, Outcome* o) {
  char dir[] = "/tmp/brickprof-exit-write-XXXXXX";
  if (mkdtemp(dir) == nullptr) return false;
  const std::string prefix = std::string(dir) + "/trace";
  int err[2];
  if (pipe(err) != 0) return false;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], 2);
    close(err[0]);
    setenv("LD_PRELOAD", agent.c_str(), 1);
    setenv("CUDA_INJECTION64_PATH", agent.c_str(), 1);
    setenv("NVTX_INJECTION64_PATH", agent.c_str(), 1);
    setenv("LD_LIBRARY_PATH", s.fake.c_str(), 1);
    setenv("BRICKPROF_OUTPUT", prefix.c_str(), 1);
    setenv("BRICKPROF_FORMATS", s.formats.c_str(), 1);
    setenv("BRICKPROF_BUFFER_MB", s.buffer_mb.c_str(), 1);
    std::string n = std::to_string(s.steps);
    execl(s.self.c_str(), s.self.c_str(), "--child", s.mode.c_str(), n.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(err[1]);
  std::string said;
  char buf[4096];
  long long returned_ns = 0, recording_cpu_us = 0;
  long before_kb = -1, asked = 0;
  for (ssize_t got; (got = read(err[0], buf, sizeof buf)) > 0;) {
    said.append(buf, static_cast<size_t>(got));
    if (returned_ns == 0 && said.find('\n') != std::string::npos)
      std::sscanf(said.c_str(), "%lld %ld %lld %ld", &returned_ns, &before_kb, &recording_cpu_us,
                  &asked);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const int64_t exited_ns = now_ns();
  close(err[0]);
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && returned_ns != 0;
  if (!ok) {
    std::fprintf(stderr, "exit_write: the child under %s failed:\n%s", agent.c_str(),
                 said.c_str());
  } else {
    o->wall_s = static_cast<double>(exited_ns - returned_ns) / 1e9;
    o->cpu_s = static_cast<double>(cpu_us(usage) - recording_cpu_us) / 1e6;
    o->before_mb = static_cast<double>(before_kb) / 1024;
    o->peak_mb = static_cast<double>(usage.ru_maxrss) / 1024;
    const std::string json = prefix + ".json";
    o->json_mb = static_cast<double>(file_size(json)) / 1e6;
    o->perfetto_mb = static_cast<double>(file_size(prefix + ".pftrace")) / 1e6;
    for (const char* ext :
         {".json", ".tree.txt", ".dot", ".trace.json", ".folded", ".json.gz", ".pftrace"})
      o->all_mb += static_cast<double>(file_size(prefix + ext)) / 1e6;
    // Nodes and dropped events are read from the JSON: without it, not counted.
    o->nodes = static_cast<double>(count_nodes(json));
    o->events = static_cast<double>(asked - dropped_events(json));
    o->events_wall = o->events / o->wall_s / 1e6;
    o->events_cpu = o->events / o->cpu_s / 1e6;
    o->nodes_wall = o->nodes / o->wall_s / 1e6;
    o->nodes_cpu = o->nodes / o->cpu_s / 1e6;
    o->json_wall = o->json_mb / o->wall_s;
    o->json_cpu = o->json_mb / o->cpu_s;
  }
  std::string cleanup = std::string("rm -rf ") + dir;
  if (std::system(cleanup.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir);
  return ok;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0)
    return child(std::strcmp(argv[2], "gpu") == 0, std::atol(argv[3]));
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: exit_write AGENT[,AGENT...] FAKE_CUDA_DIR [cpu|gpu] [steps] [buffer_mb] "
                 "[formats] [rounds]\n");
    return 2;
  }
  Setup s;
  s.self = argv[0];
  s.fake = argv[2];
  s.mode = argc > 3 ? argv[3] : "gpu";
  s.steps = argc > 4 ? std::atol(argv[4]) : kDefaultSteps;
  s.buffer_mb = argc > 5 ? argv[5] : "256";
  s.formats = argc > 6 ? argv[6] : "json,tree,dot";
  const int rounds = argc > 7 ? std::atoi(argv[7]) : 1;
  std::vector<std::string> agents;
  for (std::string list = argv[1]; !list.empty();) {
    size_t comma = list.find(',');
    agents.push_back(list.substr(0, comma));
    list = comma == std::string::npos ? "" : list.substr(comma + 1);
  }
  std::vector<std::vector<Outcome>> runs(agents.size());
  for (int r = 0; r < rounds; ++r) {  // alternating: all see the same machine
    for (size_t a = 0; a < agents.size(); ++a) {
      Outcome o;
      if (!run_once(s, agents[a], &o)) return 1;
      runs[a].push_back(o);
    }
  }
  std::printf("exit write, %s mode, %ld steps, BRICKPROF_BUFFER_MB=%s, formats %s; median of %d "
              "round%s\n",
              s.mode.c_str(), s.steps, s.buffer_mb.c_str(), s.formats.c_str(), rounds,
              rounds == 1 ? "" : "s (agents alternating)");
  for (size_t a = 0; a < agents.size(); ++a) {
    auto m = [&](double Outcome::*f) {
      std::vector<double> v;
      for (const Outcome& o : runs[a]) v.push_back(o.*f);
      return median(v);
    };
    std::printf("%s\n", agents[a].c_str());
    std::printf("  resident before the write   %8.1f MB\n", m(&Outcome::before_mb));
    std::printf("  peak resident (VmHWM)       %8.1f MB\n", m(&Outcome::peak_mb));
    std::printf("  write time, wall            %8.2f s\n", m(&Outcome::wall_s));
    std::printf("  write time, CPU             %8.2f s  (user + system, every thread)\n",
                m(&Outcome::cpu_s));
    if (m(&Outcome::json_mb) == 0)
      std::printf("  (no JSON written: nodes and events not counted)\n");
    std::printf("  events recorded             %8.0f  (%.2f M/s wall, %.2f M/s CPU)\n",
                m(&Outcome::events), m(&Outcome::events_wall), m(&Outcome::events_cpu));
    std::printf("  nodes written               %8.0f  (%.2f M/s wall, %.2f M/s CPU)\n",
                m(&Outcome::nodes), m(&Outcome::nodes_wall), m(&Outcome::nodes_cpu));
    std::printf("  JSON                        %8.1f MB  (%.1f MB/s wall, %.1f MB/s CPU)\n",
                m(&Outcome::json_mb), m(&Outcome::json_wall), m(&Outcome::json_cpu));
    if (m(&Outcome::perfetto_mb) > 0 && m(&Outcome::nodes) > 0)
      std::printf("  Perfetto                    %8.1f MB  (%.1f bytes per node)\n",
                  m(&Outcome::perfetto_mb), m(&Outcome::perfetto_mb) * 1e6 / m(&Outcome::nodes));
    else if (m(&Outcome::perfetto_mb) > 0)
      std::printf("  Perfetto                    %8.1f MB\n", m(&Outcome::perfetto_mb));
    std::printf("  all outputs                 %8.1f MB\n", m(&Outcome::all_mb));
  }
  return 0;
}
