// The `report --cpu-counters` view: what the CPU's counters counted in each
// brick and scope (analyses/cpu_counters.h), and the ratios read from them.
#include <algorithm>
#include <string>

#include "analysis/analyses/cpu_counters.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

CpuCounterReport compute(const Trace& t, const ViewSettings&) { return analyze_cpu_counters(t); }

// A count in a column: task-clock is nanoseconds, the rest plain counts.
std::string cell(const std::string& event, uint64_t v) {
  if (event == "task-clock") return format_duration(static_cast<int64_t>(v));
  return v < 10000 ? std::to_string(v) : format_rate(static_cast<double>(v));
}

std::string optional_cell(const std::optional<double>& v, int decimals, bool percent = false) {
  if (!v) return "-";
  return percent ? format_fixed(*v * 100, 1) + "%" : format_fixed(*v, decimals);
}

void text(const Trace&, const CpuCounterReport& r, std::ostream& out) {
  if (r.status == "off") {
    out << "CPU counters: off (record them with brickprof run --cpu-counters on|software, or "
           "BRICKPROF_CPU_COUNTERS)\n";
    return;
  }
  out << "CPU counters: " << printable(r.status) << "\n";
  if (r.rows.empty()) {
    out << "No scope has CPU counters\n";
    return;
  }
  const bool has_ipc = std::any_of(r.rows.begin(), r.rows.end(),
                                   [](const CpuCounterRow& x) { return x.ipc.has_value(); });
  const bool has_miss = std::any_of(r.rows.begin(), r.rows.end(), [](const CpuCounterRow& x) {
    return x.cache_miss_rate.has_value();
  });
  const bool has_mpki = std::any_of(r.rows.begin(), r.rows.end(),
                                    [](const CpuCounterRow& x) { return x.llc_mpki.has_value(); });
  const bool has_cpu = std::any_of(r.rows.begin(), r.rows.end(), [](const CpuCounterRow& x) {
    return x.on_cpu_share.has_value();
  });
  size_t width = 4;
  for (const CpuCounterRow& row : r.rows) width = std::max(width, printable(row.name).size());
  std::vector<size_t> widths;
  out << "\n"
      << pad_right("Kind", 7) << pad_right("Name", width) << pad_left("Scopes", 8)
      << pad_left("Time", 11);
  size_t line = 7 + width + 19;
  for (const std::string& e : r.events) {
    widths.push_back(std::max<size_t>(e.size() + 2, 11));
    out << pad_left(e, widths.back());
    line += widths.back();
  }
  if (has_ipc) out << pad_left("IPC", 7), line += 7;
  if (has_miss) out << pad_left("Miss rate", 11), line += 11;
  if (has_mpki) out << pad_left("LLC MPKI", 10), line += 10;
  if (has_cpu) out << pad_left("On CPU", 9), line += 9;
  out << "\n" << std::string(line, '-') << "\n";
  for (const CpuCounterRow& row : r.rows) {
    out << pad_right(to_string(row.kind), 7) << pad_right(printable(row.name), width)
        << pad_left(std::to_string(row.scopes), 8) << pad_left(format_duration(row.total_ns), 11);
    for (size_t i = 0; i < r.events.size(); ++i)
      out << pad_left(cell(r.events[i], row.values[i]), widths[i]);
    if (has_ipc) out << pad_left(optional_cell(row.ipc, 2), 7);
    if (has_miss) out << pad_left(optional_cell(row.cache_miss_rate, 1, true), 11);
    if (has_mpki) out << pad_left(optional_cell(row.llc_mpki, 2), 10);
    if (has_cpu) out << pad_left(optional_cell(row.on_cpu_share, 1, true), 9);
    out << "\n";
  }
  out << "(each scope's counts include the scopes inside it, as its time does; counted in user "
         "space on the scope's thread)\n";
}

void optional_field(JsonWriter& w, const char* key, const std::optional<double>& v) {
  w.key(key);
  if (v)
    w.value(*v);
  else
    w.null();
}

void json(const Trace&, const CpuCounterReport& r, JsonWriter& w) {
  w.begin_object().field("status", r.status).key("events").begin_array();
  for (const std::string& e : r.events) w.value(e);
  w.end_array().key("rows").begin_array();
  for (const CpuCounterRow& row : r.rows) {
    w.newline().begin_object().field("kind", to_string(row.kind)).field("name", row.name);
    w.field("scopes", row.scopes).field("total_ns", row.total_ns).key("values").begin_object();
    for (size_t i = 0; i < r.events.size(); ++i) w.field(r.events[i], row.values[i]);
    w.end_object();
    optional_field(w, "ipc", row.ipc);
    optional_field(w, "cache_miss_rate", row.cache_miss_rate);
    optional_field(w, "llc_mpki", row.llc_mpki);
    optional_field(w, "on_cpu_share", row.on_cpu_share);
    w.end_object();
  }
  w.end_array().end_object().newline();
}

}  // namespace

extern constinit const View kCpuCountersView = make_view<compute, text, json>(
    "cpu-counters",
    "CPU counters per brick and scope (BRICKPROF_CPU_COUNTERS): counts, IPC, cache miss "
    "rates, time on a CPU",
    false);

}  // namespace brickprof
