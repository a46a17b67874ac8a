// Readers of the trace's "memory" and "shapes" sections (see
// trace/model/memory.h). Their node ids are resolved once the nodes are read
// (Reader::resolve_memory_ids), their Python stacks checked (check_memory).
#include "trace/json/trace_json_values.h"

namespace brickprof::json_read {
namespace {

uint64_t get_node_or_null(od::value& v, const Cursor& c) {
  if (v.is_null()) return kNoFileId;
  return get_uint(v, c);
}

std::vector<int64_t> get_dims(od::value v, const Cursor& c) {
  std::vector<int64_t> dims;
  for (auto d : v.get_array()) dims.push_back(get_int(d.value(), c));
  return dims;
}

}  // namespace

void read_memory(od::array arr, Trace& t, std::vector<uint64_t>& scopes, Cursor& c) {
  c.section = "memory";
  c.index = 0;
  for (auto element : arr) {
    MemoryEvent e;
    uint64_t scope = kNoFileId;
    bool has_op = false;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "t") {
        e.time_ns = get_time(v, c);
      } else if (k == "thread") {
        e.thread = static_cast<uint32_t>(get_uint(v, c));
      } else if (k == "scope") {
        scope = get_node_or_null(v, c);
      } else if (k == "op") {
        e.op = get_enum<MemoryOp>(v, c);
        has_op = true;
      } else if (k == "source") {
        e.source = get_enum<MemorySource>(v, c);
      } else if (k == "device") {
        e.device = static_cast<uint32_t>(get_uint(v, c));
      } else if (k == "address") {
        e.address = get_hash(v, c);
      } else if (k == "bytes") {
        e.bytes = get_uint(v, c);
      } else if (k == "stream") {
        e.stream = get_uint(v, c);
      } else if (k == "pool") {
        e.pool = get_hash(v, c);
      } else if (k == "api") {
        e.name = t.strings.intern(get_string(v, c));
      } else if (k == "python_stack") {
        e.python_stack = static_cast<uint32_t>(get_uint(v, c));
      } else if (k == "result") {
        e.result = static_cast<int32_t>(get_int(v, c));
      }
    }
    c.key = {};
    if (!has_op) fail(c.describe() + ": missing \"op\"");
    if (!t.memory.empty() && e.time_ns < t.memory.back().time_ns)
      fail(c.describe() + ": out of time order");
    t.memory.push_back(e);
    scopes.push_back(scope);
    ++c.index;
  }
  c.index = -1;
}

void read_shapes(od::array arr, std::vector<NodeShape>& out, std::vector<uint64_t>& nodes,
                 Cursor& c) {
  c.section = "shapes";
  c.index = 0;
  for (auto element : arr) {
    NodeShape s;
    uint64_t node = kNoFileId;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "node") {
        node = get_uint(v, c);
      } else if (k == "dtype") {
        s.dtype = get_string(v, c);
      } else if (k == "inputs") {
        for (auto input : v.get_array()) s.inputs.push_back(get_dims(input.value(), c));
      } else if (k == "output") {
        s.output = get_dims(v, c);
      }
    }
    c.key = {};
    if (node == kNoFileId) fail(c.describe() + ": missing \"node\"");
    out.push_back(std::move(s));
    nodes.push_back(node);
    ++c.index;
  }
  c.index = -1;
}

void check_memory(const Trace& t) {
  Cursor c;
  c.section = "memory";
  for (size_t i = 0; i < t.memory.size(); ++i) {
    const MemoryEvent& e = t.memory[i];
    c.index = static_cast<int64_t>(i);
    if (e.python_stack != kNoPythonStack && e.python_stack >= t.python_stacks.size())
      fail(c.describe() + ": unknown python_stack " + std::to_string(e.python_stack));
  }
}

}  // namespace brickprof::json_read
