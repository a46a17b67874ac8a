// Reads the BRICKPROF_* environment (see config.h).
#include "agent/io/config.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "trace/model/settings.h"
#include "trace/output/formats.h"

namespace brickprof::agent {
namespace {

using settings::setting;

// The enums follow the table's order of choices (an index is the value).
consteval bool is_choice(std::string_view variable, size_t index, std::string_view name) {
  return settings::choice(setting(variable).values, index) == name;
}
static_assert(is_choice("BRICKPROF_SYNC", size_t(SyncMode::kNone), "none"));
static_assert(is_choice("BRICKPROF_PTX", size_t(PtxMode::kSource), "source"));
static_assert(is_choice("BRICKPROF_CUDA_GRAPH_TRACE", size_t(GraphTrace::kGraph), "graph"));
static_assert(is_choice("BRICKPROF_CMDLINE", size_t(CmdlineMode::kNone), "none"));
static_assert(is_choice("BRICKPROF_CPU_COUNTERS", size_t(cpu_counters::Mode::kSoftware),
                        "software"));

class Reader {
 public:
  Reader(Config& c, const char* (*getenv_fn)(const char*)) : c_(c), getenv_(getenv_fn) {}

  // The variable's value if it is set, non-empty and allowed; a bad value
  // gets one warning, and the caller keeps the default.
  std::optional<std::string_view> get(const settings::Setting& s) {
    const char* raw = getenv_(s.variable.data());
    std::string_view v = raw ? std::string_view(raw) : std::string_view();
    if (v.empty()) return std::nullopt;
    if (settings::problem(s, v).empty()) return v;
    std::string valid = settings::valid_values(s);
    c_.warnings.push_back(std::string(s.variable) + "='" + std::string(v) +
                          "' is not valid; using " + std::string(s.fallback) +
                          (valid.empty() ? "" : " (valid: " + valid + ")"));
    return std::nullopt;
  }
  template <typename Enum>
  void choice(const settings::Setting& s, Enum& out) {
    if (auto v = get(s)) out = static_cast<Enum>(settings::choice_index(s, *v));
  }
  void peak(const settings::Setting& s, std::optional<double>& out) {
    if (auto v = get(s)) out = settings::peak_value(*v);
  }
  template <typename Number>
  void count(const settings::Setting& s, Number& out, int shift = 0) {
    if (auto v = get(s)) out = static_cast<Number>(*settings::count_value(s, *v) << shift);
  }

 private:
  Config& c_;
  const char* (*getenv_)(const char*);
};

}  // namespace

std::vector<std::string> default_gpu_metrics() {
  return {"lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum",
          "sm__warps_active.avg.pct_of_peak_sustained_active",
          "sm__throughput.avg.pct_of_peak_sustained_elapsed"};
}

const char* to_string(SyncMode mode) {
  switch (mode) {
    case SyncMode::kDeferred: return "deferred";
    case SyncMode::kPerLayer: return "per-layer";
    case SyncMode::kImmediate: return "immediate";
    case SyncMode::kNone: return "none";
  }
  return "deferred";
}

Config read_config(const char* (*getenv_fn)(const char*)) {
  Config c;
  Reader r(c, getenv_fn);
  if (auto v = r.get(setting("BRICKPROF_OUTPUT"))) c.output = std::string(*v);
  if (auto v = r.get(setting("BRICKPROF_FORMATS"))) c.formats = parse_formats(*v);
  if (auto v = r.get(setting("BRICKPROF_LOG"))) c.log_level = std::string(*v);
  r.count(setting("BRICKPROF_BUFFER_MB"), c.buffer_bytes, 20);
  if (auto v = r.get(setting("BRICKPROF_GPU"))) c.gpu = *v == "auto";
  r.choice(setting("BRICKPROF_SYNC"), c.sync);
  r.choice(setting("BRICKPROF_PTX"), c.ptx);
  r.choice(setting("BRICKPROF_CUDA_GRAPH_TRACE"), c.graph_trace);
  if (auto v = r.get(setting("BRICKPROF_CAPTURE"))) {
    constexpr std::string_view kScopePrefix = "scope:";
    if (*v == "all") {
      c.capture = capture::Mode::kAll;
    } else if (v->substr(0, kScopePrefix.size()) == kScopePrefix) {
      c.capture = capture::Mode::kScope;
      c.capture_scope = std::string(v->substr(kScopePrefix.size()));
    } else {
      c.capture = capture::Mode::kCudaProfilerApi;
    }
  }
  r.count(setting("BRICKPROF_CAPTURE_EVERY"), c.capture_every);
  r.count(setting("BRICKPROF_CAPTURE_MAX"), c.capture_max);
  if ((c.capture_every > 1 || c.capture_max != 0) && c.capture == capture::Mode::kAll)
    c.warnings.push_back(
        "BRICKPROF_CAPTURE_EVERY/_MAX sample capture windows; BRICKPROF_CAPTURE=all has none");
  r.count(setting("BRICKPROF_SIGNAL_DUMP_SECONDS"), c.signal_dump_seconds);
  r.count(setting("BRICKPROF_PYTHON_DEPTH"), c.python_depth);
  r.peak(setting("BRICKPROF_PEAK_GFLOPS"), c.peak_gflops);
  r.peak(setting("BRICKPROF_PEAK_GBPS"), c.peak_gbps);
  r.count(setting("BRICKPROF_TEST_CLOCK_SHIFT_NS"), c.test_clock_shift_ns);
  r.choice(setting("BRICKPROF_CMDLINE"), c.cmdline);
  r.choice(setting("BRICKPROF_DUMP_ON"), c.dump_on);
  if (auto v = r.get(setting("BRICKPROF_CHECKSUMS"))) {
    c.checksums = *v == "1" || *v == "host";
    c.checksums_host_copy = *v == "host";
  }
  r.choice(setting("BRICKPROF_CPU_COUNTERS"), c.cpu_counters);
  if (auto v = r.get(setting("BRICKPROF_GPU_METRICS")); v && *v != "off")
    c.gpu_metrics = *v == "default" ? default_gpu_metrics() : settings::metric_names(*v);
  r.count(setting("BRICKPROF_GPU_METRICS_EVERY"), c.gpu_metrics_every);
  r.count(setting("BRICKPROF_RUN_PID"), c.run_pid);
  if (auto v = r.get(setting("BRICKPROF_RUN_MANIFEST"))) c.run_manifest = std::string(*v);
  return c;
}

std::string anchor_output_pattern(const std::string& pattern, const std::string& cwd) {
  if (pattern.empty() || pattern[0] == '/' || cwd.empty()) return pattern;
  // getcwd's folder has no symbolic links, so a leading ../ can go against
  // it by name (not so further in: a folder there may be a link).
  std::string_view rest = pattern;
  std::string folder = cwd;
  for (;;) {
    if (rest.substr(0, 2) == "./") {
      rest.remove_prefix(2);
    } else if (rest.substr(0, 3) == "../") {
      rest.remove_prefix(3);
      folder.erase(std::min(folder.size() - 1, folder.find_last_of('/')));
      if (folder.empty()) folder = "/";
    } else {
      break;
    }
  }
  std::string anchored;
  for (char ch : folder) anchored += ch == '%' ? std::string("%%") : std::string(1, ch);
  if (anchored.back() != '/') anchored.push_back('/');
  return anchored + std::string(rest);
}

std::string expand_output_prefix(const std::string& pattern, long pid, long rank,
                                 const std::string& host, const std::string& program) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out.push_back(pattern[i]);
      continue;
    }
    switch (pattern[++i]) {
      case 'p': out += std::to_string(pid); break;
      case 'r': out += rank >= 0 ? std::to_string(rank) : std::string("0"); break;
      case 'h': out += host; break;
      case 'n': out += program; break;
      case '%': out.push_back('%'); break;
      default: out.push_back('%'); out.push_back(pattern[i]); break;
    }
  }
  return out;
}

}  // namespace brickprof::agent
