// The `report --memory` view: per account (device memory the driver handed
// out, managed, pinned host, each pool of the program's allocators) the
// peak and what was live then, headroom, the largest allocating sites,
// what is still live at exit; repeated scopes that grow; out-of-memory
// failures with the live set they met; per node figures in the JSON.
#include <algorithm>
#include <optional>
#include <string>

#include "analysis/analyses/memory_nodes.h"
#include "analysis/analyses/memory_report.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

// Lists in the text stop here; the JSON lists every entry.
constexpr size_t kShown = 10;

// Times in the text are from the start of the run.
int64_t origin(const Trace& t) {
  if (t.process.start_ns != 0) return t.process.start_ns;
  int64_t first = t.memory.empty() ? 0 : t.memory.front().time_ns;
  for (const MemoryEvent& e : t.memory) first = std::min(first, e.time_ns);
  for (const Node& n : t.nodes) first = std::min(first, n.start_ns);
  return first;
}

std::string plural(uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

void more_line(size_t count, std::string_view indent, std::ostream& out) {
  if (count > kShown)
    out << indent << "... " << count - kShown << " more (--json lists all)\n";
}

// "in Layer 0 / Attention (model.py:12 forward)": where an event was made.
std::string where(const Trace& t, const MemoryReport& r, uint32_t event) {
  const MemoryEvent& e = t.memory[event];
  std::string out = "in " + printable(r.paths.text(t, r.paths.of(e.scope)));
  const uint32_t frame = innermost_frame(t, e.python_stack);
  if (frame != kNoFrame) out += " (" + printable(frame_text(t, frame)) + ")";
  return out;
}

void groups_text(const Trace& t, const MemoryReport& r, const std::vector<MemoryGroup>& groups,
                 bool frames, std::string_view indent, std::ostream& out) {
  for (size_t i = 0; i < groups.size() && i < kShown; ++i) {
    const MemoryGroup& g = groups[i];
    out << indent << pad_left(format_bytes(g.bytes), 9) << "  "
        << pad_left(std::to_string(g.count), 5) << "  "
        << printable(frames ? frame_text(t, g.key) : r.paths.text(t, g.key)) << '\n';
  }
  more_line(groups.size(), indent, out);
}

void sites_text(const Trace& t, const MemoryReport& r, const std::vector<MemorySite>& sites,
                std::ostream& out) {
  for (size_t i = 0; i < sites.size() && i < kShown; ++i) {
    const MemorySite& s = sites[i];
    out << "    " << pad_left(format_bytes(s.bytes), 9) << "  " << pad_left(std::to_string(s.count), 5)
        << "  " << printable(r.paths.text(t, s.path));
    if (s.frame != kNoFrame) out << "  (" << printable(frame_text(t, s.frame)) << ')';
    out << '\n';
  }
  more_line(sites.size(), "    ", out);
}

void account_text(const Trace& t, const MemoryReport& r, const AccountMemory& m, int64_t zero,
                  std::ostream& out) {
  const AccountSeries& s = r.ledger.accounts[m.account];
  out << printable(account_label(t, s.key)) << ": peak " << format_bytes(s.peak);
  if (m.peak_event != kNoEvent)
    out << " at " << format_duration(t.memory[m.peak_event].time_ns - zero) << ' '
        << where(t, r, m.peak_event);
  if (m.device_bytes)
    out << "; headroom " << format_bytes(m.device_bytes - std::min(m.device_bytes, s.peak))
        << " of " << format_bytes(m.device_bytes);
  if (s.key.account == MemoryAccount::kPoolReserve) {  // levels, not allocations
    out << "\n  " << plural(s.allocations, "change", "changes")
        << " of the pools' reserve (CUPTI's records), held at exit "
        << format_bytes(s.live_at_exit) << '\n';
  } else {
    out << "\n  " << plural(s.allocations, "allocation", "allocations") << " ("
        << format_bytes(s.allocated) << "), ";
    if (s.frees)
      out << plural(s.frees, "free", "frees") << " (" << format_bytes(s.freed) << ")";
    else
      out << "no frees";
    out << ", live at exit " << format_bytes(s.live_at_exit) << '\n';
  }
  if (s.unpaired_frees)
    out << "  " << plural(s.unpaired_frees, "free", "frees")
        << " of an address with no recorded allocation (nothing subtracted)\n";
  if (s.unrecorded_frees)
    out << "  " << plural(s.unrecorded_frees, "allocation", "allocations")
        << " at an address still live (its free was not recorded: the earlier one ended there)\n";
  if (s.failed)
    out << "  " << plural(s.failed, "failed call", "failed calls") << " (nothing changed)\n";
  if (!m.peak_by_scope.empty()) {
    out << "  live at the peak, by scope (bytes, allocations):\n";
    groups_text(t, r, m.peak_by_scope, false, "    ", out);
    if (m.peak_by_line.size() > 1 || m.peak_by_line.front().key != kNoFrame) {
      out << "  live at the peak, by Python line:\n";
      groups_text(t, r, m.peak_by_line, true, "    ", out);
    }
  }
  if (!m.sites.empty()) {
    out << "  largest allocating sites (bytes, allocations):\n";
    sites_text(t, r, m.sites, out);
  }
  if (!m.live_at_exit.empty()) {
    out << "  still live at exit, by allocating site:\n";
    sites_text(t, r, m.live_at_exit, out);
  }
}

MemoryReport compute(const Trace& t, const ViewSettings&) { return analyze_memory(t); }

void text(const Trace& t, const MemoryReport& r, std::ostream& out) {
  if (t.memory.empty()) {
    out << "Memory: no memory events in the trace\n";
    return;
  }
  const int64_t zero = origin(t);
  out << "Memory (" << plural(r.accounts.size(), "account", "accounts") << ")\n";
  for (const AccountMemory& m : r.accounts) account_text(t, r, m, zero, out);
  if (!r.growing.empty())
    out << "Repeated scopes whose allocations survive every run (bytes allocated in a run and "
           "not freed by the end of the last):\n";
  for (size_t i = 0; i < r.growing.size() && i < kShown; ++i) {
    const GrowingScope& g = r.growing[i];
    out << "  " << printable(r.paths.text(t, g.path)) << ": +" << format_bytes(g.per_run())
        << " per run over " << g.runs << " runs (" << format_bytes(g.total) << "; a run "
        << format_bytes(g.least);
    if (g.most != g.least) out << " to " << format_bytes(g.most);
    out << "), " << printable(account_label(t, r.ledger.accounts[g.account].key)) << '\n';
  }
  more_line(r.growing.size(), "  ", out);
  if (r.out_of_memory_count)
    out << "Out of memory: " << plural(r.out_of_memory_count, "allocation", "allocations")
        << " failed with CUDA_ERROR_OUT_OF_MEMORY\n";
  for (const OutOfMemory& o : r.out_of_memory) {
    const MemoryEvent& e = t.memory[o.event];
    out << "  at " << format_duration(e.time_ns - zero) << ' ' << printable(t.strings.view(e.name))
        << " asked " << format_bytes(e.bytes) << " of "
        << printable(account_label(t, r.ledger.accounts[o.account].key)) << ' '
        << where(t, r, o.event) << ": " << format_bytes(o.live) << " live";
    if (o.device_bytes) out << " of " << format_bytes(o.device_bytes);
    out << "\n    live then, by scope (bytes, allocations):\n";
    groups_text(t, r, o.live_by_scope, false, "      ", out);
  }
  if (r.out_of_memory_count > r.out_of_memory.size())
    out << "  ... " << r.out_of_memory_count - r.out_of_memory.size()
        << " more failures, not detailed\n";
  if (r.other_failures)
    out << "Other failed allocations: " << r.other_failures << " (nothing changed)\n";
  if (r.ledger.maps || r.ledger.unmaps)
    out << "Virtual memory: " << plural(r.ledger.maps, "map", "maps") << " ("
        << format_bytes(r.ledger.mapped_bytes) << "), " << plural(r.ledger.unmaps, "unmap", "unmaps")
        << " (mappings of physical memory counted once, at cuMemCreate)\n";
  if (r.ledger.trims) out << "Pool trims: " << r.ledger.trims << '\n';
}

void path_json(JsonWriter& w, const Trace& t, const MemoryReport& r, std::string_view key,
               uint32_t path) {
  w.key(key);
  if (path == kNoPath)
    w.null();
  else
    w.value(r.paths.text(t, path));
}

void frame_json(JsonWriter& w, const Trace& t, std::string_view key, uint32_t frame) {
  w.key(key);
  if (frame == kNoFrame)
    w.null();
  else
    w.value(frame_text(t, frame));
}

void groups_json(JsonWriter& w, const Trace& t, const MemoryReport& r, std::string_view key,
                 const std::vector<MemoryGroup>& groups, bool frames) {
  w.key(key).begin_array();
  for (const MemoryGroup& g : groups) {
    w.newline().begin_object();
    if (frames)
      frame_json(w, t, "python", g.key);
    else
      path_json(w, t, r, "scope", g.key);
    w.field("bytes", g.bytes).field("allocations", g.count).end_object();
  }
  w.end_array();
}

void sites_json(JsonWriter& w, const Trace& t, const MemoryReport& r, std::string_view key,
                const std::vector<MemorySite>& sites) {
  w.key(key).begin_array();
  for (const MemorySite& s : sites) {
    w.newline().begin_object();
    path_json(w, t, r, "scope", s.path);
    frame_json(w, t, "python", s.frame);
    w.field("bytes", s.bytes).field("allocations", s.count).end_object();
  }
  w.end_array();
}

void account_key_json(JsonWriter& w, const Trace& t, const MemoryAccountKey& k) {
  w.field("account", to_string(k.account));
  w.key("device");
  if (k.device == kHostDeviceId)
    w.value("host");
  else
    w.value(k.device);
  w.key("pool");
  if (k.account == MemoryAccount::kProgram)
    w.value(t.strings.view(k.pool));
  else
    w.null();
}

// Where and when an event was made, as JSON fields.
void event_json(JsonWriter& w, const Trace& t, const MemoryReport& r, uint32_t event) {
  const MemoryEvent& e = t.memory[event];
  w.field("event", event).field("t", e.time_ns);
  path_json(w, t, r, "scope", r.paths.of(e.scope));
  frame_json(w, t, "python", innermost_frame(t, e.python_stack));
}

// The account's live bytes after each change, [t_ns, bytes]; past
// kTimelinePoints changes, the highest in each of that many equal stretches
// from its first change to its last (the peak is always one of them).
constexpr size_t kTimelinePoints = 1000;

void timeline_json(JsonWriter& w, const Trace& t, const AccountSeries& s) {
  w.key("timeline").begin_array();
  const size_t n = s.events.size();
  const auto point = [&](size_t i) {
    w.begin_array().value(t.memory[s.events[i]].time_ns).value(s.live[i]).end_array();
  };
  if (n <= kTimelinePoints) {
    for (size_t i = 0; i < n; ++i) point(i);
  } else {
    const int64_t first = t.memory[s.events.front()].time_ns;
    const double span = static_cast<double>(t.memory[s.events.back()].time_ns - first) + 1;
    size_t best = 0, bucket = 0;
    for (size_t i = 0; i < n; ++i) {
      const auto at = static_cast<size_t>(
          static_cast<double>(t.memory[s.events[i]].time_ns - first) / span * kTimelinePoints);
      if (at != bucket) {
        point(best);
        bucket = at;
        best = i;
      } else if (s.live[i] > s.live[best]) {
        best = i;
      }
    }
    point(best);
  }
  w.end_array();
}

void nodes_json(JsonWriter& w, const Trace& t, const MemoryReport& r) {
  const NodeMemoryIndex& index = r.nodes;
  w.key("nodes").begin_array();
  for (uint32_t n = 0; n < t.nodes.size(); ++n) {
    if (!is_cpu_kind(t.nodes[n].kind) || !index.touched(n)) continue;
    for (uint32_t a = 0; a < r.ledger.accounts.size(); ++a) {
      const NodeMemory m = index.of(t, r.ledger, n, a);
      if (m.allocations == 0 && m.frees == 0) continue;
      w.newline()
          .begin_object()
          .field("node", t.file_id(n))
          .field("account", a)
          .field("allocated_bytes", m.allocated)
          .field("allocations", m.allocations)
          .field("freed_bytes", m.freed)
          .field("frees", m.frees)
          .field("live_at_start_bytes", m.live_at_start)
          .field("live_at_end_bytes", m.live_at_end)
          .field("peak_bytes", m.peak)
          .end_object();
    }
  }
  w.end_array();
}

void json(const Trace& t, const MemoryReport& r, JsonWriter& w) {
  w.begin_object();
  w.key("accounts").begin_array();
  for (const AccountMemory& m : r.accounts) {
    const AccountSeries& s = r.ledger.accounts[m.account];
    w.newline().begin_object();
    account_key_json(w, t, s.key);
    w.field("label", account_label(t, s.key)).field("peak_bytes", s.peak);
    w.key("peak");
    if (m.peak_event == kNoEvent) {
      w.null();
    } else {
      w.begin_object();
      event_json(w, t, r, m.peak_event);
      w.end_object();
    }
    w.key("memory_bytes");
    if (m.device_bytes) w.value(m.device_bytes); else w.null();
    w.key("headroom_bytes");
    if (m.device_bytes) w.value(m.device_bytes - std::min(m.device_bytes, s.peak)); else w.null();
    w.field("allocations", s.allocations)
        .field("allocated_bytes", s.allocated)
        .field("frees", s.frees)
        .field("freed_bytes", s.freed)
        .field("live_at_exit_bytes", s.live_at_exit)
        .field("unpaired_frees", s.unpaired_frees)
        .field("unrecorded_frees", s.unrecorded_frees)
        .field("failed_calls", s.failed)
        .field("out_of_memory", s.out_of_memory);
    groups_json(w, t, r, "peak_by_scope", m.peak_by_scope, false);
    groups_json(w, t, r, "peak_by_python", m.peak_by_line, true);
    sites_json(w, t, r, "sites", m.sites);
    sites_json(w, t, r, "live_at_exit", m.live_at_exit);
    timeline_json(w, t, s);
    w.end_object();
  }
  w.end_array();
  w.key("growing").begin_array();
  for (const GrowingScope& g : r.growing) {
    w.newline().begin_object();
    path_json(w, t, r, "scope", g.path);
    w.field("account", g.account)
        .field("runs", g.runs)
        .field("per_run_bytes", g.per_run())
        .field("total_bytes", g.total)
        .field("least_bytes", g.least)
        .field("most_bytes", g.most)
        .end_object();
  }
  w.end_array();
  w.key("out_of_memory").begin_object();
  w.field("count", r.out_of_memory_count).field("other_failures", r.other_failures);
  w.key("failures").begin_array();
  for (const OutOfMemory& o : r.out_of_memory) {
    const MemoryEvent& e = t.memory[o.event];
    w.newline().begin_object();
    event_json(w, t, r, o.event);
    w.field("api", t.strings.view(e.name)).field("bytes", e.bytes).field("account", o.account);
    w.field("live_bytes", o.live);
    w.key("memory_bytes");
    if (o.device_bytes) w.value(o.device_bytes); else w.null();
    groups_json(w, t, r, "live_by_scope", o.live_by_scope, false);
    w.end_object();
  }
  w.end_array().end_object();
  w.key("virtual_memory")
      .begin_object()
      .field("maps", r.ledger.maps)
      .field("mapped_bytes", r.ledger.mapped_bytes)
      .field("unmaps", r.ledger.unmaps)
      .end_object();
  w.field("pool_trims", r.ledger.trims);
  nodes_json(w, t, r);
  w.end_object().newline();
}

}  // namespace

extern constinit const View kMemoryView = make_view<compute, text, json>(
    "memory",
    "Memory per account (device, managed, pinned host, the program's pools): peak and what was "
    "live then by scope and Python line, headroom, largest allocators, live at exit, scopes that "
    "grow per run, out-of-memory failures",
    false);

}  // namespace brickprof
