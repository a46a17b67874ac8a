// Reader of the trace's "checksums" section (trace/model/checksum.h); node
// ids resolved once the nodes are read, as the memory section's.
#include "trace/json/trace_json_values.h"

namespace brickprof::json_read {

void read_checksums(od::array arr, Trace& t, std::vector<uint64_t>& nodes, Cursor& c) {
  c.section = "checksums";
  c.index = 0;
  for (auto element : arr) {
    OutputChecksum out;
    Digest& d = out.digest;
    uint64_t node = kNoFileId;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "node") {
        node = get_uint(v, c);
      } else if (k == "name") {
        out.name = t.strings.intern(get_string(v, c));
      } else if (k == "type") {
        out.type = get_enum<ElementType>(v, c);
      } else if (k == "source") {
        out.source = get_enum<ChecksumSource>(v, c);
      } else if (k == "address") {
        out.address = get_hash(v, c);
      } else if (k == "fnv1a") {
        d.fnv1a = get_hash(v, c);
      } else if (k == "count") {
        d.count = get_uint(v, c);
      } else if (k == "sum") {
        d.sum = get_double(v, c);
      } else if (k == "l1") {
        d.l1 = get_double(v, c);
      } else if (k == "l2") {
        d.l2 = get_double(v, c);
      } else if (k == "min") {
        d.min = get_double(v, c);
      } else if (k == "max") {
        d.max = get_double(v, c);
      } else if (k == "nan") {
        d.nan = get_uint(v, c);
      } else if (k == "inf") {
        d.inf = get_uint(v, c);
      } else if (k == "projections") {
        size_t i = 0;
        for (auto p : v.get_array()) {
          if (i >= kProjections) fail(c.describe() + ": more than " +
                                      std::to_string(kProjections) + " projections");
          d.projections[i++] = get_double(p.value(), c);
        }
      }
    }
    c.key = {};
    if (node == kNoFileId) fail(c.describe() + ": missing \"node\"");
    t.checksums.push_back(out);
    nodes.push_back(node);
    ++c.index;
  }
  c.index = -1;
}

}  // namespace brickprof::json_read
