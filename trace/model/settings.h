// The BRICKPROF_* settings and their allowed values: the one table that
// `brickprof run` (its flags, checked before the program starts) and the
// agent (a bad value gets a warning and the default) both read. Adding a
// setting is one row in kSettings; README.md's table is the user's doc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof::settings {

enum class Kind {
  kText,     // any value (a path, a prefix)
  kChoice,   // one of `values` ("a,b,c")
  kFormats,  // a comma list of output formats (formats.h's names)
  kCount,    // a whole number from `min` to `max`
  kCapture,  // all, cuda-profiler-api (or cudaProfilerApi, as nsys spells it), scope:NAME
  kPeak,     // a positive, finite decimal number (a roofline peak)
  kMetrics,  // off, default, or a comma list of metric names ([A-Za-z0-9_.]+)
};

struct Setting {
  std::string_view variable;  // "BRICKPROF_SYNC"
  std::string_view flag;      // `brickprof run`'s flag; empty: set by environment only
  Kind kind = Kind::kText;
  // kChoice: the choices, in the order of the agent's enum; kCapture: its forms
  std::string_view values;
  uint64_t min = 0, max = 0;  // kCount
  std::string_view fallback;  // the default, which the agent keeps on a bad value
  std::string_view help;      // run --help
  // run --help's name for the value; empty: N for a count, the choices for a
  // choice, TEXT otherwise
  std::string_view value_name = {};
};

inline constexpr Setting kSettings[] = {
    {"BRICKPROF_OUTPUT", "--output", Kind::kText, "", 0, 0, "brickprof-%n-%p",
     "Output path prefix (%p pid, %r rank, %h host, %n program)", "PREFIX"},
    {"BRICKPROF_FORMATS", "--formats", Kind::kFormats, "", 0, 0, "json,tree,dot",
     "Comma list of output formats", "LIST"},
    {"BRICKPROF_LOG", "--log", Kind::kChoice, "off,error,warn,info,debug", 0, 0, "warn",
     "Agent log level", "LEVEL"},
    {"BRICKPROF_BUFFER_MB", "--buffer-mb", Kind::kCount, "", 1, 1u << 20, "256",
     "Cap on event memory, MiB"},
    {"BRICKPROF_SYNC", "--sync", Kind::kChoice, "deferred,per-layer,immediate,none", 0, 0,
     "deferred", "GPU timing mode"},
    {"BRICKPROF_GPU", "--gpu", Kind::kChoice, "auto,off", 0, 0, "auto", "GPU profiling"},
    {"BRICKPROF_PTX", "--ptx", Kind::kChoice, "hash,source", 0, 0, "hash",
     "Store PTX hashes only, or source too"},
    {"BRICKPROF_CAPTURE", "--capture", Kind::kCapture, "all,cuda-profiler-api,scope:NAME", 0, 0,
     "all",
     "What to record: all, cuda-profiler-api (between cudaProfilerStart and cudaProfilerStop), "
     "or scope:NAME (inside every scope, brick or NVTX range named NAME)",
     "WHAT"},
    {"BRICKPROF_CAPTURE_EVERY", "--capture-every", Kind::kCount, "", 1, 1000000000, "1",
     "Record one capture window in K: the 1st, K+1th, ... (needs --capture)", "K"},
    {"BRICKPROF_CAPTURE_MAX", "--capture-max", Kind::kCount, "", 1, 1000000000, "no limit",
     "Record at most M capture windows (needs --capture)", "M"},
    {"BRICKPROF_CUDA_GRAPH_TRACE", "--cuda-graph-trace", Kind::kChoice, "node,graph", 0, 0, "node",
     "Kernels replayed from CUDA graphs: node (each kernel, attributed to the scope that "
     "captured it) or graph (each replay as one interval: a fifth of CUPTI's cost per replay, "
     "no kernels inside)"},
    {"BRICKPROF_DUMP_ON", "--dump-on", Kind::kChoice, "exit,oom", 0, 0, "exit",
     "When the trace is written: exit (at the end), or oom (also at an allocation that fails "
     "for lack of device memory, since the process often dies next; a later write replaces it)"},
    // `brickprof run --checksums` sets it (a flag without a value).
    {"BRICKPROF_CHECKSUMS", "", Kind::kChoice, "0,1,host", 0, 0, "0",
     "Checksum mode: after each kernel, digest every device buffer it may have written: 1 on "
     "the GPU where it can (on the kernel's stream), host by copying each to the host "
     "(synchronises); times are perturbed either way"},
    {"BRICKPROF_CMDLINE", "--cmdline", Kind::kChoice, "full,program,none", 0, 0, "full",
     "How much of each command line a trace keeps: full, program (argv[0] only) or none"},
    {"BRICKPROF_CPU_COUNTERS", "--cpu-counters", Kind::kChoice, "off,on,software", 0, 0, "off",
     "CPU counters per scope (perf_event_open): off, on (cycles, instructions, cache "
     "references and misses, LLC misses; needs a PMU) or software (task-clock, page faults, "
     "context switches)",
     "MODE"},
    {"BRICKPROF_GPU_METRICS", "--gpu-metrics", Kind::kMetrics, "off,default,NAME,...", 0, 0,
     "off",
     "GPU hardware counters per kernel and scope (CUPTI's range profiler, each profiled kernel "
     "replayed once per pass): off, default (L2 hit rate, DRAM bytes read and written, "
     "achieved occupancy, SM throughput) or a comma list of Nsight Compute metric names",
     "WHAT"},
    {"BRICKPROF_GPU_METRICS_EVERY", "--gpu-metrics-every", Kind::kCount, "", 1, 1000000000, "10",
     "Profile the kernels of one occurrence in N of each scope path: the 1st, N+1th, ... "
     "(needs --gpu-metrics)"},
    {"BRICKPROF_SIGNAL_DUMP_SECONDS", "", Kind::kCount, "", 1, 3600, "20", ""},
    {"BRICKPROF_PYTHON_DEPTH", "", Kind::kCount, "", 0, 256, "32", ""},
    {"BRICKPROF_PEAK_GFLOPS", "", Kind::kPeak, "", 0, 0, "the device's", ""},
    {"BRICKPROF_PEAK_GBPS", "", Kind::kPeak, "", 0, 0, "the device's", ""},
    // For tests of cross-rank clock alignment: this process's clock reads
    // that many ns ahead.
    {"BRICKPROF_TEST_CLOCK_SHIFT_NS", "", Kind::kCount, "", 0, INT64_MAX, "0", ""},
    // Set by `brickprof run` itself, not by hand.
    {"BRICKPROF_RUN_PID", "", Kind::kCount, "", 1, INT64_MAX, "none", ""},
    {"BRICKPROF_RUN_MANIFEST", "", Kind::kText, "", 0, 0, "", ""},
};

// The row of `variable`; a name not in the table does not compile where the
// call is a constant expression (the agent's reads are).
consteval const Setting& setting(std::string_view variable) {
  for (const Setting& s : kSettings)
    if (s.variable == variable) return s;
  throw "not a BRICKPROF_* setting in kSettings";
}

// The i-th item of a kChoice setting's `values` ("" past the last), so a
// reader can static_assert that its enum follows the table's order.
constexpr std::string_view choice(std::string_view values, size_t i) {
  std::string_view rest = values;
  for (; i > 0 && !rest.empty(); --i) {
    size_t comma = rest.find(',');
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return rest.substr(0, rest.find(','));
}

// The index of `value` among a kChoice setting's choices, or -1.
int choice_index(const Setting& s, std::string_view value);
// A kCount setting's number, or nothing if `value` is not a whole number in range.
std::optional<uint64_t> count_value(const Setting& s, std::string_view value);
// A peak as a user writes it (BRICKPROF_PEAK_*, report --peak-*): a decimal
// number and nothing else, finite and above zero (a roof of 0 or inf makes
// every share of it meaningless, and PeakOverrides reads 0 as "not given");
// nothing otherwise.
std::optional<double> peak_value(std::string_view value);
// A kMetrics list's names in order, each once; empty if any is not a name
// (the list "a,,b" or "a b" is refused whole).
std::vector<std::string> metric_names(std::string_view value);
// "" if `value` is allowed, else what is wrong with it, in one phrase:
// "'sometimes' is not deferred, per-layer, immediate or none",
// "unknown format 'pdf' (json,tree,...)", "empty list".
std::string problem(const Setting& s, std::string_view value);
// The allowed values, as a warning lists them ("node, graph", "0 to 256"),
// or "" for free text and numbers without a useful bound.
std::string valid_values(const Setting& s);

}  // namespace brickprof::settings
