// Writes the Graphviz execution graph (see export_dot.h).
#include "trace/formats/dot.h"

#include <unordered_set>
#include <vector>

#include "trace/model/format.h"
#include "trace/model/printable.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

constexpr size_t kFlushAt = 1 << 20;

const char* fill_for(Category c) {
  switch (c) {
    case Category::kNorm:
      return "#cfe2f3";  // blue
    case Category::kAttention:
      return "#fce5cd";  // orange
    case Category::kFfn:
      return "#d9ead3";  // green
    case Category::kOther:
      return "#eeeeee";  // grey
    case Category::kCommunication:
      return "#d9d2e9";  // purple
    default:
      return "#ffffff";
  }
}

void append_id(std::string& s, uint32_t agg) { s += "n" + std::to_string(agg); }

// The label lines of one entry, already escaped ("\n" separates lines).
std::string label_of(const Trace& trace, const ThreadLabels& threads, const AggregateTree& tree,
                     uint32_t agg) {
  const AggregateNode& a = tree.nodes[agg];
  std::string s;
  if (a.first == kNoNode) {
    append_dot_escaped(s, printable(threads(a.thread)));
    return s;
  }
  const Node& node = trace.nodes[a.first];
  append_dot_escaped(s, printable(node_label(trace, node)));
  s += "\\n";
  if (node.kind == NodeKind::kKernel) {
    const GpuDetail* g = trace.detail(node);
    if (g) {
      std::string launch = "<<<";
      append_dims(launch, g->grid);
      launch += ",";
      append_dims(launch, g->block);
      launch += ">>> smem=" + std::to_string(g->smem) + "B";
      append_dot_escaped(s, launch);
      s += "\\n";
    }
    s += std::to_string(a.count) + (a.count == 1 ? " launch, " : " launches, ");
    append_duration(s, a.total_ns);
    return s;
  }
  if (node.kind == NodeKind::kTransfer || node.kind == NodeKind::kMemset) {
    append_bytes(s, a.bytes);
    s += " ";
  }
  append_duration(s, a.total_ns);
  if (a.count > 1) s += " ×" + std::to_string(a.count);
  if (node.kind == NodeKind::kBrick || a.elements)
    s += "\\n" + std::to_string(a.elements) + " elem";
  return s;
}

void append_node(std::string& s, const Trace& trace, const ThreadLabels& threads,
                 const AggregateTree& tree, uint32_t agg) {
  const AggregateNode& a = tree.nodes[agg];
  s += "  ";
  append_id(s, agg);
  s += " [label=\"" + label_of(trace, threads, tree, agg) + "\"";
  if (a.first == kNoNode) {
    s += ", shape=folder";
  } else {
    const Node& node = trace.nodes[a.first];
    switch (node.kind) {
      case NodeKind::kLayer:
        s += ", shape=box, style=\"rounded,bold\"";
        break;
      case NodeKind::kBrick:
      case NodeKind::kScope: {
        Category c = node.category == Category::kNone && node.kind == NodeKind::kBrick
                         ? Category::kOther
                         : node.category;
        s += ", shape=box, style=\"rounded,filled\", fillcolor=\"";
        s += fill_for(c);
        s += "\"";
        break;
      }
      case NodeKind::kKernel:
        s += ", shape=ellipse, style=filled, fillcolor=\"#fff2cc\"";
        break;
      case NodeKind::kTransfer:
      case NodeKind::kMemset:
        s += ", shape=note, style=filled, fillcolor=\"#f4cccc\"";
        break;
      case NodeKind::kSync:
        s += ", shape=octagon";
        break;
    }
  }
  s += "];\n";
}

}  // namespace

void append_dot_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
}

void DotSink::aggregate(const AggregateInput& in) {
  require_aggregate(in, "dot");
  write_dot(in.entries, in.tree, out_, options_);
}

void write_dot(const Trace& trace, const AggregateTree& tree, std::ostream& out,
               const DotOptions& options) {
  std::string s;
  auto flush = [&] {
    if (s.size() >= kFlushAt) {
      out.write(s.data(), static_cast<std::streamsize>(s.size()));
      s.clear();
    }
  };
  s += "digraph brickprof {\n";
  s += "  graph [rankdir=LR, fontname=\"Helvetica\"];\n";
  s += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  s += "  edge [fontname=\"Helvetica\", fontsize=8];\n";
  // Entries are numbered parent-first, so the first max_nodes form a
  // connected top part of the tree; the top itself is not drawn.
  const size_t total = tree.nodes.size() - 1;
  const size_t drawn = options.max_nodes && total > options.max_nodes ? options.max_nodes : total;
  auto visible = [&](uint32_t agg) {
    return agg != 0 && agg != kNoAgg && agg <= drawn &&
           (tree.multi_thread() || !tree.is_thread_group(agg));
  };
  const ThreadLabels threads(trace);
  for (uint32_t agg = 1; agg <= drawn; ++agg) {
    if (!visible(agg)) continue;
    append_node(s, trace, threads, tree, agg);
    flush();
  }
  if (drawn < total) {
    s += "  more [shape=plaintext, label=\"… " + std::to_string(total - drawn) +
         " more entries not drawn\"];\n";
  }
  for (uint32_t agg = 1; agg <= drawn; ++agg) {
    uint32_t parent = tree.nodes[agg].parent;
    if (!visible(agg) || !visible(parent)) continue;
    const AggregateNode& a = tree.nodes[agg];
    bool gpu = a.first != kNoNode && is_gpu_kind(trace.nodes[a.first].kind);
    s += "  ";
    append_id(s, parent);
    s += " -> ";
    append_id(s, agg);
    s += gpu ? " [label=\"launches\", style=dashed];\n" : " [label=\"contains\"];\n";
    flush();
  }
  // The trace's own ordering edges, onto merged entries; repeats drawn once.
  std::unordered_set<uint64_t> seen;
  size_t extra = 0, skipped = 0;
  for (const Edge& e : trace.edges) {
    if (e.type != EdgeType::kSequence && e.type != EdgeType::kDependsOn) continue;
    if (e.src >= tree.of_trace_node.size() || e.dst >= tree.of_trace_node.size()) continue;
    uint32_t a = tree.of_trace_node[e.src], b = tree.of_trace_node[e.dst];
    if (a == b || !visible(a) || !visible(b)) continue;
    if (options.max_extra_edges && extra >= options.max_extra_edges) {
      ++skipped;  // counted before de-duplication: the set stays bounded
      continue;
    }
    uint64_t key = (uint64_t{a} << 33) | (uint64_t{b} << 1) | (e.type == EdgeType::kDependsOn);
    if (!seen.insert(key).second) continue;
    ++extra;
    s += "  ";
    append_id(s, a);
    s += " -> ";
    append_id(s, b);
    s += e.type == EdgeType::kSequence
             ? " [label=\"sequence\", style=dotted, color=\"#666666\", constraint=false];\n"
             : " [label=\"depends_on\", color=\"#cc0000\", constraint=false];\n";
    flush();
  }
  if (skipped) {
    s += "  more_edges [shape=plaintext, label=\"… " + std::to_string(skipped) +
         " more ordering edges not drawn\"];\n";
  }
  s += "}\n";
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

}  // namespace brickprof
