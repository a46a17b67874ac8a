// Trace nodes for tests in one statement, fields named:
//   add_node(t, {.kind = NodeKind::kLayer, .name = "Layer 0", .thread = 1, .end_ns = 100});
// instead of a Node filled field by field and a name interned by hand.
#pragma once

#include <string_view>

#include "trace/model/trace.h"

namespace brickprof::test {

// Node's fields in Node's order, the name as text; what is left out keeps
// Node's default.
struct NodeSpec {
  NodeKind kind = NodeKind::kScope;
  Category category = Category::kNone;
  int16_t brick_id = -1;
  int32_t layer_index = -1;
  std::string_view name = {};
  uint32_t parent = kNoNode;
  uint32_t thread = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

inline Node make_node(Trace& t, const NodeSpec& s) {
  Node n;
  n.kind = s.kind;
  n.category = s.category;
  n.brick_id = s.brick_id;
  n.layer_index = s.layer_index;
  n.name = t.strings.intern(s.name);
  n.parent = s.parent;
  n.thread = s.thread;
  n.start_ns = s.start_ns;
  n.end_ns = s.end_ns;
  return n;
}

// A CPU node (scope, brick, layer); returns its id.
inline uint32_t add_node(Trace& t, const NodeSpec& s) { return t.add_node(make_node(t, s)); }

// A GPU node (kernel, copy, memset, sync) with its device-side facts.
inline uint32_t add_gpu_node(Trace& t, const NodeSpec& s, const GpuDetail& g = {}) {
  return t.add_gpu_node(make_node(t, s), g);
}

}  // namespace brickprof::test
