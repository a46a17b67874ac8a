// The shapes a program attached to its scopes (brickprof_set_shapes; the
// trace's `shapes`) as the analyzer uses them: the shape that applies to a
// node (its own, or for GPU work and unshaped scopes the nearest enclosing
// scope's, so a kernel takes its brick's), one line of text per shape, its
// output's size, and the per-op summary split by shape (as PyTorch's
// profiler groups by input shape), so one slow shape among fast ones shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

class ShapeIndex {
 public:
  explicit ShapeIndex(const Trace& t);
  // The shape that applies to `node`, or nullptr.
  const NodeShape* of(uint32_t node) const;
  bool empty() const { return t_.shapes.empty(); }

 private:
  const Trace& t_;
  std::vector<uint32_t> own_;  // per node: index in t.shapes, or kNoNode
};

// "f32 [1,4096] [4096,4096] -> [1,4096]"
std::string shape_text(const NodeShape& s);
// The output's bytes (NodeShape::output_elements() by dtype_bytes), 0 when
// the dtype's element size is not known.
uint64_t output_bytes(const NodeShape& s);

// One op name at one shape: its calls and time.
struct OpShape {
  std::string name;
  std::string shape;  // shape_text()
  uint64_t count = 0;
  int64_t total_ns = 0;
  uint64_t output_elements = 0;  // per call
  uint64_t output_bytes = 0;     // per call; 0 unknown
};

// The ops (node ids, as Analysis::op_nodes) that have a shape, grouped by
// name and shape, largest total time first.
std::vector<OpShape> ops_by_shape(const Trace& t, const ShapeIndex& shapes,
                                  const std::vector<uint32_t>& op_nodes);

}  // namespace brickprof
