// Scale benchmark of `report --critical-path --gpu-idle --launches --summary`: for each size it
// generates a trace file (in a child), then reads and analyses it in a fresh
// child, printing events/s and that child's peak memory (VmHWM), and fits the
// time-vs-size exponent. Usage: bench_analysis [--dir D] [--keep] [N...]
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analyses/critical_path.h"
#include "analysis/views/views.h"
#include "tests/support/trace_generator.h"
#include "trace/derive/stats.h"
#include "trace/json/trace_json.h"
#include "trace/output/whole_trace.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

long vm_hwm_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

// Least-squares slope of log(time) on log(events): 1.0 is linear.
double exponent(const std::vector<double>& events, const std::vector<double>& seconds) {
  double mx = 0, my = 0;
  const double n = static_cast<double>(events.size());
  for (size_t i = 0; i < events.size(); ++i) mx += std::log(events[i]), my += std::log(seconds[i]);
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    double x = std::log(events[i]) - mx;
    sxy += x * (std::log(seconds[i]) - my);
    sxx += x * x;
  }
  return sxy / sxx;
}

struct Result {
  double events = 0, file_mb = 0, read_s = 0, analyse_s = 0, idle_s = 0, launches_s = 0,
         peak_mib = 0;
};

// Runs `fn` in a child; the child writes its Result through a pipe.
template <typename F>
bool in_child(F fn, Result* out) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    Result r = fn();
    ssize_t w = write(fd[1], &r, sizeof r);
    _exit(w == sizeof r ? 0 : 1);
  }
  close(fd[1]);
  ssize_t got = read(fd[0], out, sizeof *out);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return got == sizeof *out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// One report view's text, as `brickprof report --NAME` prints it.
void render(const brickprof::Trace& t, std::string_view name, std::ostream& out) {
  const brickprof::View& view = *brickprof::find_view(name);
  brickprof::render_view(view, t, brickprof::compute_view(view, t, {}), false, out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "/tmp";
  bool keep = false;
  std::vector<uint64_t> sizes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!std::strcmp(argv[i], "--keep"))
      keep = true;
    else
      sizes.push_back(static_cast<uint64_t>(std::strtod(argv[i], nullptr)));
  }
  if (sizes.empty()) sizes = {10'000, 100'000, 1'000'000, 10'000'000};
  std::printf("%10s %9s %9s %12s %10s %9s %9s %9s %12s %10s\n", "events", "file MB", "read s",
              "read ev/s", "analyse s", "gpu-idle", "launches", "total s", "total ev/s",
              "peak MiB");
  std::vector<double> events, totals, idles, launches;
  for (uint64_t n : sizes) {
    std::string path = dir + "/brickprof-bench-" + std::to_string(n) + ".json";
    Result gen;
    bool ok = in_child(
        [&] {
          brickprof::GeneratorConfig config;
          config.target_events = n;
          brickprof::Trace t = brickprof::generate_trace(config);
          {
            std::ofstream out(path, std::ios::binary);
            brickprof::write_format("json", t, out);
          }
          // Written back now, so the kernel flushing gigabytes of dirty pages
          // does not compete with the timed read for the two cores.
          int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
          if (fd >= 0) {
            fsync(fd);
            close(fd);
          }
          Result r;
          r.events = static_cast<double>(t.nodes.size());
          return r;
        },
        &gen);
    if (!ok) {
      std::fprintf(stderr, "generating %s failed\n", path.c_str());
      return 1;
    }
    Result r;
    ok = in_child(
        [&] {
          Result res;
          auto t0 = Clock::now();
          brickprof::Trace t = brickprof::read_trace_file(path);
          res.read_s = seconds_since(t0);
          auto t1 = Clock::now();
          std::ostringstream sink;
          render(t, "critical-path", sink);
          auto t2 = Clock::now();
          render(t, "gpu-idle", sink);
          res.idle_s = seconds_since(t2);
          auto t3 = Clock::now();
          render(t, "launches", sink);
          res.launches_s = seconds_since(t3);
          brickprof::TraceStats stats = brickprof::compute_stats(t);
          res.analyse_s = seconds_since(t1) + (stats.bricks.empty() ? 0 : 0);
          res.events = static_cast<double>(t.nodes.size());
          res.peak_mib = static_cast<double>(vm_hwm_kib()) / 1024.0;
          return res;
        },
        &r);
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    r.file_mb = static_cast<double>(f.tellg()) / 1e6;
    if (!keep) std::remove(path.c_str());
    if (!ok) {
      std::fprintf(stderr, "analysing %s failed\n", path.c_str());
      return 1;
    }
    double total = r.read_s + r.analyse_s;
    std::printf("%10.0f %9.1f %9.3f %12.0f %10.3f %9.3f %9.3f %9.3f %12.0f %10.1f\n", r.events,
                r.file_mb, r.read_s, r.events / r.read_s, r.analyse_s, r.idle_s, r.launches_s,
                total, r.events / total, r.peak_mib);
    std::fflush(stdout);
    events.push_back(r.events);
    totals.push_back(total);
    idles.push_back(r.idle_s);
    launches.push_back(r.launches_s);
  }
  if (events.size() >= 2) {
    std::printf("time ~ events^%.3f (least-squares fit over %zu sizes)\n", exponent(events, totals),
                events.size());
    std::printf("gpu-idle ~ events^%.3f\n", exponent(events, idles));
    std::printf("launches ~ events^%.3f\n", exponent(events, launches));
  }
  return 0;
}
