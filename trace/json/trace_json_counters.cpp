// Reader of the trace's "counters" section (trace/model/counters.h): a
// sample has "name" and "value", tokens have "tokens"; scopes are file ids,
// resolved once the nodes are read, as the memory section's.
#include <cmath>

#include "trace/json/trace_json_values.h"

namespace brickprof::json_read {

void read_counters(od::array arr, Trace& t, std::vector<uint64_t>& scopes, Cursor& c) {
  c.section = "counters";
  c.index = 0;
  const StringId tokens_name = t.strings.intern(kTokensName);
  for (auto element : arr) {
    CounterSample s;
    uint64_t scope = kNoFileId;
    bool has_name = false, has_value = false, has_tokens = false;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "t") {
        s.time_ns = get_time(v, c);
      } else if (k == "thread") {
        s.thread = static_cast<uint32_t>(get_uint(v, c));
      } else if (k == "scope") {
        scope = v.is_null() ? kNoFileId : get_uint(v, c);
      } else if (k == "name") {
        s.name = t.strings.intern(get_string(v, c));
        has_name = true;
      } else if (k == "value") {
        s.value = get_double(v, c);
        if (!std::isfinite(s.value)) fail(c.describe() + ": not a finite number");
        has_value = true;
      } else if (k == "tokens") {
        s.value = static_cast<double>(get_uint(v, c));
        has_tokens = true;
      }
    }
    c.key = {};
    if (has_tokens) {
      if (has_name || has_value) fail(c.describe() + ": \"tokens\" with \"name\" or \"value\"");
      s.kind = CounterKind::kTokens;
      s.name = tokens_name;
    } else if (!has_name || !has_value) {
      fail(c.describe() + ": needs \"name\" and \"value\", or \"tokens\"");
    }
    if (!t.counters.empty() && s.time_ns < t.counters.back().time_ns)
      fail(c.describe() + ": out of time order");
    t.counters.push_back(s);
    scopes.push_back(scope);
    ++c.index;
  }
  c.index = -1;
}

}  // namespace brickprof::json_read
