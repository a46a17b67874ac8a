// Reader of the trace's "cpu_counters" section (trace/model/cpu_counters.h);
// node ids resolved once the nodes are read, as the checksums'.
#include "trace/json/trace_json_values.h"

namespace brickprof::json_read {

void read_cpu_counters(od::object obj, Trace& t, std::vector<uint64_t>& nodes, Cursor& c) {
  c.section = "cpu_counters";
  CpuCounters& out = t.cpu_counters;
  for (auto f : obj) {
    const std::string_view k = f.unescaped_key();
    c.key = k;
    od::value v = f.value();
    if (k == "events") {
      for (auto e : v.get_array()) {
        if (out.events.size() == kMaxCpuCounters)
          fail(c.describe() + ": more than " + std::to_string(kMaxCpuCounters) + " events");
        out.events.emplace_back(get_string(e.value(), c));
      }
    } else if (k == "nodes") {
      c.section = "cpu_counters.nodes";
      c.index = 0;
      for (auto element : v.get_array()) {
        NodeCpuCounters n;
        uint64_t node = kNoFileId;
        size_t count = 0;
        for (auto g : od::object(element.get_object())) {
          const std::string_view key = g.unescaped_key();
          c.key = key;
          od::value gv = g.value();
          if (key == "node") {
            node = get_uint(gv, c);
          } else if (key == "values") {
            for (auto x : gv.get_array()) {
              if (count == kMaxCpuCounters)
                fail(c.describe() + ": more than " + std::to_string(kMaxCpuCounters) + " values");
              n.values[count++] = get_uint(x.value(), c);
            }
          }
        }
        // "events" comes first in the section, as the writer puts it.
        c.key = {};
        if (node == kNoFileId) fail(c.describe() + ": missing \"node\"");
        if (count != out.events.size())
          fail(c.describe() + ": " + std::to_string(count) + " values for " +
               std::to_string(out.events.size()) + " events");
        out.nodes.push_back(n);
        nodes.push_back(node);
        ++c.index;
      }
      c.section = "cpu_counters";
      c.index = -1;
    }
  }
  c.key = {};
}

}  // namespace brickprof::json_read
