// Shapes for the analyzer (see shapes.h).
#include "analysis/analyses/shapes.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace brickprof {

ShapeIndex::ShapeIndex(const Trace& t) : t_(t) {
  if (t.shapes.empty()) return;
  own_.assign(t.nodes.size(), kNoNode);
  for (uint32_t i = 0; i < t.shapes.size(); ++i)
    if (t.shapes[i].node < own_.size()) own_[t.shapes[i].node] = i;
}

const NodeShape* ShapeIndex::of(uint32_t node) const {
  // Up the parents: a kernel takes the shapes of the brick that launched it.
  for (uint32_t n = node; n < own_.size(); n = t_.nodes[n].parent) {
    if (own_[n] != kNoNode) return &t_.shapes[own_[n]];
  }
  return nullptr;
}

namespace {
void append_dims(std::string& out, const std::vector<int64_t>& dims) {
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  out += ']';
}
}  // namespace

std::string shape_text(const NodeShape& s) {
  std::string out = s.dtype;
  for (const auto& in : s.inputs) {
    out += ' ';
    append_dims(out, in);
  }
  out += " -> ";
  append_dims(out, s.output);
  return out;
}

uint64_t output_bytes(const NodeShape& s) { return s.output_elements() * dtype_bytes(s.dtype); }

std::vector<OpShape> ops_by_shape(const Trace& t, const ShapeIndex& shapes,
                                  const std::vector<uint32_t>& op_nodes) {
  std::vector<OpShape> rows;
  if (shapes.empty()) return rows;
  // Each shape's text once (many nodes share one), then rows by (name, text).
  std::vector<std::string> texts(t.shapes.size());
  std::map<std::pair<std::string_view, std::string_view>, size_t> index;
  for (uint32_t i : op_nodes) {
    const NodeShape* s = shapes.of(i);
    if (!s) continue;
    std::string& text = texts[static_cast<size_t>(s - t.shapes.data())];
    if (text.empty()) text = shape_text(*s);
    const Node& node = t.nodes[i];
    auto [it, added] = index.emplace(std::make_pair(t.name(node), std::string_view(text)),
                                     rows.size());
    if (added)
      rows.push_back(OpShape{std::string(t.name(node)), text, 0, 0, s->output_elements(),
                             output_bytes(*s)});
    rows[it->second].count++;
    rows[it->second].total_ns += node.duration_ns();
  }
  std::sort(rows.begin(), rows.end(), [](const OpShape& x, const OpShape& y) {
    if (x.total_ns != y.total_ns) return x.total_ns > y.total_ns;
    return x.name != y.name ? x.name < y.name : x.shape < y.shape;
  });
  return rows;
}

}  // namespace brickprof
