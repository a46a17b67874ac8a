// The `report --launches` view: the cost of each launch on the host, the wait before the
// kernel started, and which kernels are launch-bound.
#include "analysis/analyses/launch_stats.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kMaxKernels = 20;

std::string median_p99(const Spread& s) {
  if (s.count == 0) return "-";
  return "median " + format_duration(s.median_ns) + ", p99 " + format_duration(s.p99_ns) +
         ", max " + format_duration(s.max_ns);
}

std::string cell(const Spread& s, int64_t Spread::*field) {
  return s.count ? format_duration(s.*field) : "-";
}

void spread_json(JsonWriter& w, std::string_view key, const Spread& s) {
  w.key(key)
      .begin_object()
      .field("count", s.count)
      .field("total_ns", s.total_ns)
      .field("median_ns", s.median_ns)
      .field("p99_ns", s.p99_ns)
      .field("max_ns", s.max_ns)
      .end_object();
}

LaunchStats compute(const Trace& t, const ViewSettings&) { return analyze_launches(t); }

void json(const Trace&, const LaunchStats& r, JsonWriter& w) {
  w.begin_object()
      .field("kernels", r.kernels)
      .field("direct", r.direct)
      .field("direct_gpu_ns", r.direct_gpu_ns)
      .field("shorter_than_call", r.shorter_than_call)
      .field("shorter_gpu_ns", r.shorter_gpu_ns);
  spread_json(w, "call", r.call);
  spread_json(w, "delay", r.delay);
  w.key("graph")
      .begin_object()
      .field("launches", r.graph.launches)
      .field("kernels", r.graph.kernels)
      .field("whole", r.graph.whole);
  spread_json(w, "call", r.graph.call);
  spread_json(w, "first_delay", r.graph.first_delay);
  w.end_object();
  w.key("by_kernel").begin_array();
  for (const KernelLaunches& k : r.by_kernel) {
    w.newline()
        .begin_object()
        .field("name", k.name)
        .field("from_graph", k.from_graph)
        .field("count", k.count);
    spread_json(w, "gpu", k.gpu);
    spread_json(w, "call", k.call);
    spread_json(w, "delay", k.delay);
    w.field("shorter_than_call", k.shorter_than_call)
        .field("shorter_gpu_ns", k.shorter_gpu_ns)
        .end_object();
  }
  w.end_array().end_object().newline();
}

void text(const Trace&, const LaunchStats& r, std::ostream& out) {
  if (r.kernels == 0 && r.graph.whole == 0) {
    out << "Kernel launches: no kernels in the trace\n";
    return;
  }
  out << "Kernel launches: " << r.kernels << " kernels, " << r.direct << " launched one by one";
  if (r.graph.kernels)
    out << ", " << r.graph.kernels << " replayed by " << r.graph.launches << " graph launches";
  if (r.graph.whole)
    out << ", " << r.graph.whole << " graph replays traced whole (kernels inside not seen)";
  out << '\n';
  if (r.direct) {
    out << "  launch call on the host: " << median_p99(r.call);
    if (r.call.count) out << "; " << format_duration(r.call.total_ns) << " in all";
    out << "\n  launch call to kernel start: " << median_p99(r.delay) << '\n';
    if (r.call.count)
      out << "  launch-bound (shorter on the GPU than their launch call): " << r.shorter_than_call
          << " of " << r.call.count << " (" << format_share(r.shorter_than_call, r.call.count)
          << "), " << format_duration(r.shorter_gpu_ns) << " of "
          << format_duration(r.direct_gpu_ns) << " GPU time\n";
  }
  if (r.graph.launches)
    out << "  graph launch call: " << median_p99(r.graph.call)
        << "\n  graph launch call to its first kernel: " << median_p99(r.graph.first_delay) << '\n';
  out << "  " << pad_right("kernel", 32) << pad_right(" path", 7);
  for (const char* column : {"count", "gpu total", "gpu med", "call med", "delay med", "delay p99"})
    out << pad_left(column, 11);
  out << pad_left("bound", 8) << '\n';
  for (size_t i = 0; i < r.by_kernel.size() && i < kMaxKernels; ++i) {
    const KernelLaunches& k = r.by_kernel[i];
    out << "  " << pad_right(clip(printable(k.name), 32), 32) << ' '
        << pad_right(k.from_graph ? "graph" : "direct", 6) << pad_left(std::to_string(k.count), 11)
        << pad_left(format_duration(k.gpu.total_ns), 11)
        << pad_left(cell(k.gpu, &Spread::median_ns), 11)
        << pad_left(cell(k.call, &Spread::median_ns), 11)
        << pad_left(cell(k.delay, &Spread::median_ns), 11)
        << pad_left(cell(k.delay, &Spread::p99_ns), 11)
        << pad_left(k.call.count ? std::to_string(k.shorter_than_call) : "-", 8) << '\n';
  }
  if (r.by_kernel.size() > kMaxKernels)
    out << "  ... " << r.by_kernel.size() - kMaxKernels << " more (--json lists all)\n";
  out << "  (delay: from the launch call's start, or the graph launch's, to the kernel's start;"
         " bound: launches whose kernel ran shorter than the call)\n";
}

}  // namespace

extern constinit const View kLaunchesView = make_view<compute, text, json>(
    "launches",
    "Kernel launch statistics: host launch call, launch-to-start delay, launch-bound kernels "
    "(shorter than their launch call), direct vs graph",
    false);

}  // namespace brickprof
