// The `report --imbalance` view: compute time per layer and per brick on
// each rank, max/mean across ranks, the straggler and what it costs per
// instance (imbalance.h).
#include <functional>

#include "analysis/analyses/imbalance.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kMaxBricks = 20;
constexpr size_t kMaxLayers = 64;
constexpr size_t kMaxRankColumns = 8;  // beyond, min / mean / max only

ImbalanceReport compute(const Trace& t, const ViewSettings&) {
  return analyze_imbalance(t, classify_rank_work(t));
}

void row_json(const Trace& t, const ImbalanceRow& row, JsonWriter& w) {
  w.newline().begin_object();
  if (row.layer)
    w.field("layer", row.layer_index);
  else
    w.field("brick", t.strings.view(row.brick));
  w.key("compute_ns").begin_array();
  for (int64_t ns : row.compute_ns) w.value(ns);
  w.end_array();
  w.key("instances").begin_array();
  for (uint64_t n : row.instances) w.value(n);
  w.end_array();
  w.field("max_ns", row.max_ns).field("mean_ns", row.mean_ns).field("max_over_mean", row.ratio());
  w.field("straggler", row.straggler).field("excess_per_instance_ns", row.excess_per_instance_ns);
  w.end_object();
}

void json(const Trace& t, const ImbalanceReport& r, JsonWriter& w) {
  w.begin_object();
  write_ranks_json(w, r.ranks);
  w.key("layers").begin_array();
  for (const ImbalanceRow& row : r.layers) row_json(t, row, w);
  w.end_array();
  w.key("bricks").begin_array();
  for (const ImbalanceRow& row : r.bricks) row_json(t, row, w);
  w.end_array().end_object().newline();
}

void table(const ImbalanceReport& r, const std::vector<ImbalanceRow>& rows, size_t limit,
           const std::function<std::string(const ImbalanceRow&)>& name, std::ostream& out) {
  const size_t ranks = r.ranks.ranks.size();
  const bool per_rank = ranks <= kMaxRankColumns;
  out << "  " << pad_right(rows.empty() || rows.front().layer ? "layer" : "brick", 20);
  if (per_rank) {
    for (uint32_t k = 0; k < ranks; ++k) out << pad_left(clip(printable(r.ranks.label(k)), 10), 11);
  } else {
    out << pad_left("min", 11) << pad_left("mean", 11) << pad_left("max", 11);
  }
  out << pad_left("max/mean", 10) << "  " << pad_right("straggler", 12)
      << pad_left("excess each", 12) << '\n';
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const ImbalanceRow& row = rows[i];
    out << "  " << pad_right(clip(printable(name(row)), 20), 20);
    if (per_rank) {
      for (int64_t ns : row.compute_ns) out << pad_left(format_duration(ns), 11);
    } else {
      int64_t low = row.compute_ns.empty() ? 0 : row.compute_ns.front();
      for (int64_t ns : row.compute_ns) low = std::min(low, ns);
      out << pad_left(format_duration(low), 11)
          << pad_left(format_duration(static_cast<int64_t>(row.mean_ns)), 11)
          << pad_left(format_duration(row.max_ns), 11);
    }
    out << pad_left(format_fixed(row.ratio(), 2), 10) << "  "
        << pad_right(clip(printable(r.ranks.label(row.straggler)), 12), 12)
        << pad_left(format_duration(static_cast<int64_t>(row.excess_per_instance_ns)), 12) << '\n';
  }
  if (rows.size() > limit) out << "  ... " << rows.size() - limit << " more (--json lists all)\n";
}

void text(const Trace& t, const ImbalanceReport& r, std::ostream& out) {
  if (r.layers.empty() && r.bricks.empty()) {
    out << "Load imbalance: no compute recorded\n";
    return;
  }
  out << "Load imbalance across " << r.ranks.ranks.size()
      << (r.ranks.ranks.size() == 1 ? " rank" : " ranks")
      << ": compute time (communication left out) per layer and brick; straggler: the rank with "
         "the most; excess each: its compute minus the other ranks' mean, per instance\n";
  if (!r.layers.empty())
    table(
        r, r.layers, kMaxLayers,
        [](const ImbalanceRow& row) { return "Layer " + std::to_string(row.layer_index); }, out);
  if (!r.bricks.empty())
    table(
        r, r.bricks, kMaxBricks,
        [&](const ImbalanceRow& row) { return std::string(t.strings.view(row.brick)); }, out);
}

}  // namespace

extern constinit const View kImbalanceView = make_view<compute, text, json>(
    "imbalance",
    "Load imbalance across ranks per layer and brick: compute per rank, max/mean, the straggler "
    "and its excess per instance",
    false);

}  // namespace brickprof
