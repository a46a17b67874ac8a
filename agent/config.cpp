// Reads the BRICKPROF_* environment (see config.h).
#include "agent/config.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <string_view>

#include "analysis/export/sink.h"

namespace brickprof::agent {
namespace {

void warn(Config& c, const char* var, std::string_view value, const std::string& used) {
  c.warnings.push_back(std::string(var) + "='" + std::string(value) + "' is not valid; using " +
                       used);
}

}  // namespace

const char* to_string(SyncMode mode) {
  switch (mode) {
    case SyncMode::kDeferred:
      return "deferred";
    case SyncMode::kPerLayer:
      return "per-layer";
    case SyncMode::kImmediate:
      return "immediate";
    case SyncMode::kNone:
      return "none";
  }
  return "deferred";
}

Config read_config(const char* (*getenv_fn)(const char*)) {
  Config c;
  auto get = [&](const char* name) -> std::string_view {
    const char* v = getenv_fn(name);
    return v ? std::string_view(v) : std::string_view();
  };
  if (auto v = get("BRICKPROF_OUTPUT"); !v.empty()) c.output = std::string(v);

  if (auto v = get("BRICKPROF_FORMATS"); !v.empty()) {
    std::vector<std::string> formats;
    bool bad = false;
    std::stringstream ss{std::string(v)};
    for (std::string item; std::getline(ss, item, ',');) {
      if (item.empty()) continue;
      if (make_exporter(item))
        formats.push_back(item);
      else
        bad = true;
    }
    if (bad || formats.empty())
      warn(c, "BRICKPROF_FORMATS", v, "json,tree,dot");
    else
      c.formats = formats;
  }

  if (auto v = get("BRICKPROF_LOG"); !v.empty()) {
    if (v == "off" || v == "error" || v == "warn" || v == "info" || v == "debug")
      c.log_level = std::string(v);
    else
      warn(c, "BRICKPROF_LOG", v, "warn");
  }

  if (auto v = get("BRICKPROF_BUFFER_MB"); !v.empty()) {
    uint64_t mb = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), mb);
    if (ec != std::errc() || end != v.data() + v.size() || mb == 0 || mb > (1u << 20))
      warn(c, "BRICKPROF_BUFFER_MB", v, "256");
    else
      c.buffer_bytes = mb << 20;
  }

  if (auto v = get("BRICKPROF_GPU"); !v.empty()) {
    if (v == "auto")
      c.gpu = true;
    else if (v == "off")
      c.gpu = false;
    else
      warn(c, "BRICKPROF_GPU", v, "auto");
  }

  if (auto v = get("BRICKPROF_SYNC"); !v.empty()) {
    if (v == "deferred")
      c.sync = SyncMode::kDeferred;
    else if (v == "per-layer")
      c.sync = SyncMode::kPerLayer;
    else if (v == "immediate")
      c.sync = SyncMode::kImmediate;
    else if (v == "none")
      c.sync = SyncMode::kNone;
    else
      warn(c, "BRICKPROF_SYNC", v, "deferred");
  }

  if (auto v = get("BRICKPROF_PTX"); !v.empty()) {
    if (v == "hash")
      c.ptx = PtxMode::kHash;
    else if (v == "source")
      c.ptx = PtxMode::kSource;
    else
      warn(c, "BRICKPROF_PTX", v, "hash");
  }

  if (auto v = get("BRICKPROF_CUDA_GRAPH_TRACE"); !v.empty()) {
    if (v == "node")
      c.graph_trace = GraphTrace::kNode;
    else if (v == "graph")
      c.graph_trace = GraphTrace::kGraph;
    else
      warn(c, "BRICKPROF_CUDA_GRAPH_TRACE", v, "node (valid: node, graph)");
  }

  if (auto v = get("BRICKPROF_CAPTURE"); !v.empty()) {
    constexpr std::string_view kScopePrefix = "scope:";
    if (v == "all") {
      c.capture = capture::Mode::kAll;
    } else if (v == "cuda-profiler-api" ||
               v == "cudaProfilerApi") {  // the latter as nsys spells it
      c.capture = capture::Mode::kCudaProfilerApi;
    } else if (v.substr(0, kScopePrefix.size()) == kScopePrefix && v.size() > kScopePrefix.size()) {
      c.capture = capture::Mode::kScope;
      c.capture_scope = std::string(v.substr(kScopePrefix.size()));
    } else {
      warn(c, "BRICKPROF_CAPTURE", v, "all (valid: all, cuda-profiler-api, scope:NAME)");
    }
  }

  // Sampling of capture windows: a positive count, at most 10^9.
  auto window_count = [&c](const char* var, std::string_view v, uint64_t& out, const char* used) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n == 0 || n > 1000000000)
      warn(c, var, v, used);
    else
      out = n;
  };
  if (auto v = get("BRICKPROF_CAPTURE_EVERY"); !v.empty())
    window_count("BRICKPROF_CAPTURE_EVERY", v, c.capture_every, "1 (every window)");
  if (auto v = get("BRICKPROF_CAPTURE_MAX"); !v.empty())
    window_count("BRICKPROF_CAPTURE_MAX", v, c.capture_max, "no limit");
  if ((c.capture_every > 1 || c.capture_max != 0) && c.capture == capture::Mode::kAll)
    c.warnings.push_back(
        "BRICKPROF_CAPTURE_EVERY/_MAX sample capture windows; BRICKPROF_CAPTURE=all has none");

  if (auto v = get("BRICKPROF_SIGNAL_DUMP_SECONDS"); !v.empty()) {
    unsigned s = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), s);
    if (ec != std::errc() || end != v.data() + v.size() || s == 0 || s > 3600)
      warn(c, "BRICKPROF_SIGNAL_DUMP_SECONDS", v, "20");
    else
      c.signal_dump_seconds = s;
  }

  if (auto v = get("BRICKPROF_CMDLINE"); !v.empty()) {
    if (v == "full")
      c.cmdline = CmdlineMode::kFull;
    else if (v == "program")
      c.cmdline = CmdlineMode::kProgram;
    else if (v == "none")
      c.cmdline = CmdlineMode::kNone;
    else
      warn(c, "BRICKPROF_CMDLINE", v, "full (valid: full, program, none)");
  }

  if (auto v = get("BRICKPROF_PYTHON_DEPTH"); !v.empty()) {
    unsigned depth = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), depth);
    if (ec != std::errc() || end != v.data() + v.size() || depth > 256)
      warn(c, "BRICKPROF_PYTHON_DEPTH", v, "32 (valid: 0 to 256)");
    else
      c.python_depth = depth;
  }

  if (auto v = get("BRICKPROF_RUN_PID"); !v.empty()) {
    long pid = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), pid);
    if (ec != std::errc() || end != v.data() + v.size() || pid <= 0)
      warn(c, "BRICKPROF_RUN_PID", v, "none");
    else
      c.run_pid = pid;
  }
  c.run_manifest = std::string(get("BRICKPROF_RUN_MANIFEST"));
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
      case 'p':
        out += std::to_string(pid);
        break;
      case 'r':
        out += rank >= 0 ? std::to_string(rank) : std::string("0");
        break;
      case 'h':
        out += host;
        break;
      case 'n':
        out += program;
        break;
      case '%':
        out.push_back('%');
        break;
      default:
        out.push_back('%');
        out.push_back(pattern[i]);
        break;
    }
  }
  return out;
}

}  // namespace brickprof::agent
