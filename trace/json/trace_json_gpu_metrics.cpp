// Reader of the trace's "gpu_metrics" section (trace/model/gpu_metrics.h);
// node ids resolved once the nodes are read, as the CPU counters'.
#include <cmath>

#include "trace/json/trace_json_values.h"

namespace brickprof::json_read {
namespace {

// A value the profiler could not give is written null.
double get_value(od::value v, const Cursor& c) {
  if (v.is_null()) return std::nan("");
  return get_double(v, c);
}

}  // namespace

void read_gpu_metrics(od::object obj, Trace& t, std::vector<uint64_t>& nodes, Cursor& c) {
  c.section = "gpu_metrics";
  GpuMetrics& out = t.gpu_metrics;
  for (auto f : obj) {
    const std::string_view k = f.unescaped_key();
    c.key = k;
    od::value v = f.value();
    if (k == "metrics") {
      for (auto m : v.get_array()) out.metrics.emplace_back(get_string(m.value(), c));
    } else if (k == "weights") {
      for (auto w : v.get_array()) {
        const int64_t weight = get_int(w.value(), c);
        // Written after "metrics": a weight names one of them.
        if (weight != kSummed && (weight < 0 || weight >= static_cast<int64_t>(out.metrics.size())))
          fail(c.describe() + ": weight " + std::to_string(weight) + " names no metric");
        out.weights.push_back(static_cast<int32_t>(weight));
      }
      if (out.weights.size() != out.metrics.size())
        fail(c.describe() + ": " + std::to_string(out.weights.size()) + " weights for " +
             std::to_string(out.metrics.size()) + " metrics");
    } else if (k == "passes") {
      out.passes = static_cast<uint32_t>(get_uint(v, c));
    } else if (k == "every") {
      out.every = get_uint(v, c);
    } else if (k == "occurrences_sampled") {
      out.occurrences_sampled = get_uint(v, c);
    } else if (k == "occurrences_skipped") {
      out.occurrences_skipped = get_uint(v, c);
    } else if (k == "nodes") {
      c.section = "gpu_metrics.nodes";
      c.index = 0;
      for (auto element : v.get_array()) {
        NodeGpuMetrics n;
        uint64_t node = kNoFileId;
        for (auto g : od::object(element.get_object())) {
          const std::string_view key = g.unescaped_key();
          c.key = key;
          od::value gv = g.value();
          if (key == "node") {
            node = get_uint(gv, c);
          } else if (key == "values") {
            for (auto x : gv.get_array()) n.values.push_back(get_value(x.value(), c));
          }
        }
        c.key = {};
        if (node == kNoFileId) fail(c.describe() + ": missing \"node\"");
        if (n.values.size() != out.metrics.size())
          fail(c.describe() + ": " + std::to_string(n.values.size()) + " values for " +
               std::to_string(out.metrics.size()) + " metrics");
        out.nodes.push_back(std::move(n));
        nodes.push_back(node);
        ++c.index;
      }
      c.section = "gpu_metrics";
      c.index = -1;
    }
  }
  if (out.weights.size() != out.metrics.size()) {
    c.key = {};
    fail(c.describe() + ": \"weights\" missing");
  }
  c.key = {};
}

}  // namespace brickprof::json_read
