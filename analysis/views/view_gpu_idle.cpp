// The `report --gpu-idle` view: busy share per device, idle split by cause, the host
// scopes the GPU waited on, the gap sizes and the largest gaps.
#include <algorithm>

#include "analysis/analyses/gpu_idle.h"
#include "analysis/analyses/trace_scope.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

// Host scopes in the text; the JSON lists every one.
constexpr size_t kShownScopes = 10;
constexpr const char* kBucketNames[] = {"under 10µs", "10-100µs", "100µs-1ms", "1ms+"};
constexpr const char* kBucketKeys[] = {"under_10us", "10us_100us", "100us_1ms", "1ms_plus"};

// Where "at 1.23ms" counts from: the process start when recorded.
int64_t origin(const Trace& t) {
  if (t.process.start_ns != 0 || t.nodes.empty()) return t.process.start_ns;
  int64_t first = t.nodes[0].start_ns;
  for (const Node& n : t.nodes) first = std::min(first, n.start_ns);
  return first;
}

GpuIdleReport compute(const Trace& t, const ViewSettings&) { return analyze_gpu_idle(t); }

void json(const Trace& t, const GpuIdleReport& r, JsonWriter& w) {
  const ScopeNamer scope(t);
  w.begin_object().key("devices").begin_array();
  for (const DeviceIdle& d : r.devices) {
    w.newline()
        .begin_object()
        .field("device", d.device)
        .field("name", d.name)
        .field("operations", d.operations)
        .field("span_ns", d.span_ns)
        .field("busy_ns", d.busy_ns)
        .field("kernel_busy_ns", d.kernel_busy_ns)
        .field("idle_ns", d.idle_ns())
        .field("outside_capture_ns", d.outside_capture_ns)
        .field("gaps", d.gaps)
        .field("host_ns", d.host_ns)
        .field("issued_ns", d.issued_ns)
        .field("unknown_ns", d.unknown_ns);
    w.key("gap_sizes").begin_object();
    for (size_t b = 0; b < d.buckets.size(); ++b)
      w.key(kBucketKeys[b])
          .begin_object()
          .field("count", d.buckets[b].count)
          .field("ns", d.buckets[b].ns)
          .end_object();
    w.end_object();
    w.key("host_scopes").begin_array();
    for (const HostWait& h : d.host_scopes)
      w.newline()
          .begin_object()
          .field("scope", scope_name(t, h.scope))
          .field("ns", h.ns)
          .end_object();
    w.end_array();
    w.key("largest_gaps").begin_array();
    for (const IdleGap& g : d.largest)
      w.newline()
          .begin_object()
          .field("start_ns", g.start_ns)
          .field("ns", g.ns)
          .field("host_ns", g.host_ns)
          .field("next", t.file_id(g.next))
          .field("next_name", t.name(t.nodes[g.next]))
          .field("next_scope", scope(g.next))
          .field("host_scope", g.host_ns ? scope_name(t, g.host_scope) : "")
          .end_object();
    w.end_array().end_object();
  }
  w.end_array().end_object().newline();
}

void text(const Trace& t, const GpuIdleReport& r, std::ostream& out) {
  if (r.devices.empty()) {
    out << "GPU idle: no GPU work in the trace\n";
    return;
  }
  const int64_t zero = origin(t);
  const ScopeNamer scope(t);
  // The recorder was off between capture windows: what the GPU did there
  // is unknown. Traces that list the windows leave that time out; older
  // ones (and merges with a run recorded whole) cannot.
  if (t.diagnostics.capture != "all")
    out << "Recorded in capture windows (" << printable(t.diagnostics.capture) << "): "
        << (t.diagnostics.capture_windows.empty()
                ? "gaps between windows count as idle; --under NAME keeps to one kind of step"
                : "time between windows is left out of idle")
        << '\n';
  for (const DeviceIdle& d : r.devices) {
    out << "GPU idle (" << printable(d.name) << "): busy " << format_duration(d.busy_ns) << " of "
        << format_duration(d.span_ns) << " (" << format_share(d.busy_ns, d.span_ns) << "; kernels "
        << format_share(d.kernel_busy_ns, d.span_ns) << "), idle " << format_duration(d.idle_ns())
        << " in " << d.gaps << " gaps between " << d.operations << " operations";
    if (d.outside_capture_ns)
      out << " (" << format_duration(d.outside_capture_ns) << " between capture windows left out)";
    out << '\n';
    if (d.gaps == 0) continue;
    if (d.host_ns + d.issued_ns > 0)
      out << "  waiting for the host to issue work: " << format_duration(d.host_ns) << " ("
          << format_share(d.host_ns, d.idle_ns()) << " of idle)\n"
          << "  issued, not yet started (launch latency, dependencies): "
          << format_duration(d.issued_ns) << " (" << format_share(d.issued_ns, d.idle_ns())
          << ")\n";
    if (d.unknown_ns)
      out << "  next operation without an API time: " << format_duration(d.unknown_ns) << '\n';
    out << "  gap sizes:";
    for (size_t b = 0; b < d.buckets.size(); ++b)
      out << (b ? ", " : " ") << kBucketNames[b] << ' ' << d.buckets[b].count << " ("
          << format_duration(d.buckets[b].ns) << ')';
    out << '\n';
    if (!d.host_scopes.empty()) out << "  host scopes while the GPU waited for work:\n";
    for (size_t i = 0; i < d.host_scopes.size() && i < kShownScopes; ++i) {
      const HostWait& h = d.host_scopes[i];
      out << "    " << printable(scope_name(t, h.scope)) << ": " << format_duration(h.ns) << " ("
          << format_share(h.ns, d.host_ns) << ")\n";
    }
    if (d.host_scopes.size() > kShownScopes)
      out << "    ... " << d.host_scopes.size() - kShownScopes << " more (--json lists all)\n";
    out << "  largest gaps:\n";
    for (const IdleGap& g : d.largest) {
      out << "    " << format_duration(g.ns) << " at " << format_duration(g.start_ns - zero)
          << " before " << printable(t.name(t.nodes[g.next])) << " (" << printable(scope(g.next))
          << ")";
      if (g.host_ns)
        out << ": host " << format_duration(g.host_ns) << " in "
            << printable(scope_name(t, g.host_scope));
      out << '\n';
    }
  }
}

}  // namespace

extern constinit const View kGpuIdleView = make_view<compute, text, json>(
    "gpu-idle",
    "GPU busy and idle time per device: waiting for the host vs issued, the host scopes "
    "waited on, largest gaps",
    false);

}  // namespace brickprof
