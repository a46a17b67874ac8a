// Renders the ASCII execution tree (see export_tree.h).
#include "trace/formats/tree.h"

#include "trace/model/format.h"
#include "trace/model/printable.h"
#include "trace/model/queries.h"
#include "trace/model/recorded.h"

namespace brickprof {
namespace {

constexpr size_t kFlushAt = 1 << 20;

void append_count(std::string& s, uint64_t count) {
  if (count > 1) s += " ×" + std::to_string(count);
}

// An Entry's agg for the "(outside every scope)" line (its time in `more`).
constexpr uint32_t kOutsideRow = kNoAgg - 1;

struct Entry {
  uint32_t agg;       // kNoAgg for a "… N more" line, kOutsideRow
  uint32_t depth;     // 1 = directly under the heading
  bool last;          // last line among its siblings
  uint64_t more = 0;  // for "… N more"
};

}  // namespace

std::string tree_entry_text(const Trace& trace, const AggregateTree& tree, uint32_t agg) {
  const AggregateNode& a = tree.nodes[agg];
  if (a.first == kNoNode) return printable(thread_label(trace, a.thread));
  const Node& node = trace.nodes[a.first];
  std::string s;
  append_printable(s, node_label(trace, node));  // names are the program's data
  s.push_back(' ');
  switch (node.kind) {
    case NodeKind::kKernel: {
      const GpuDetail* g = trace.detail(node);
      GpuDetail none;
      if (!g) g = &none;
      s += "<<<";
      append_dims(s, g->grid);
      s += ",";
      append_dims(s, g->block);
      s += "," + std::to_string(a.count) + ">>> smem=" + std::to_string(g->smem) + "B ";
      append_duration(s, a.total_ns);
      return s;  // the launch count is inside <<<>>>
    }
    case NodeKind::kTransfer:
    case NodeKind::kMemset:
      append_bytes(s, a.bytes);
      s.push_back(' ');
      append_duration(s, a.total_ns);
      break;
    case NodeKind::kBrick:
      append_duration(s, a.total_ns);
      s += " (" + std::to_string(a.elements) + " elem)";
      break;
    case NodeKind::kScope:
      append_duration(s, a.total_ns);
      if (a.elements) s += " (" + std::to_string(a.elements) + " elem)";
      break;
    default:
      append_duration(s, a.total_ns);
      break;
  }
  append_count(s, a.count);
  return s;
}

void TreeSink::aggregate(const AggregateInput& in) {
  require_aggregate(in, "tree");
  write_tree(in.entries, in.tree, out_, options_);
}

void write_tree(const Trace& trace, const AggregateTree& tree, std::ostream& out,
                const TreeOptions& options) {
  std::string buf = "Execution Graph\n";
  if (recorded_nothing(trace)) {
    append_printable(buf, nothing_recorded_line(trace));
    buf.push_back('\n');
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    return;
  }
  const int64_t outside_ns = time_outside_scopes(trace, tree);
  // Depth-first with an explicit stack: deep traces must not overflow ours.
  std::vector<Entry> stack;
  std::vector<uint32_t> kids;
  std::string prefix;
  std::vector<size_t> prefix_len = {0};  // prefix length for each depth

  // `outside`: the top level, which ends with the time outside every scope.
  auto push_children = [&](uint32_t agg, uint32_t depth, bool outside = false) {
    tree.children(agg, kids);
    if (outside)
      stack.push_back(Entry{kOutsideRow, depth, true, static_cast<uint64_t>(outside_ns)});
    size_t shown = kids.size();
    uint64_t more = 0;
    if (options.max_depth && depth > options.max_depth) {
      shown = 0;
      more = kids.size();
    } else if (options.max_children && kids.size() > options.max_children) {
      shown = options.max_children;
      more = kids.size() - shown;
    }
    if (more) stack.push_back(Entry{kNoAgg, depth, !outside, more});
    for (size_t i = shown; i-- > 0;)
      stack.push_back(Entry{kids[i], depth, !more && !outside && i + 1 == kids.size()});
  };

  // Thread groups become lines only when there are several threads.
  const bool outside = outside_ns >= 0;
  if (tree.multi_thread()) {
    push_children(0, 1, outside);
  } else if (tree.top().first_child != kNoAgg) {
    push_children(tree.top().first_child, 1, outside);
  } else if (outside) {
    stack.push_back(Entry{kOutsideRow, 1, true, static_cast<uint64_t>(outside_ns)});
  }
  while (!stack.empty()) {
    Entry e = stack.back();
    stack.pop_back();
    prefix.resize(prefix_len[e.depth - 1]);
    buf += prefix;
    buf += e.last ? "└── " : "├── ";
    if (e.agg == kNoAgg) {
      buf += "… " + std::to_string(e.more) + " more\n";
    } else if (e.agg == kOutsideRow) {
      buf.append(kOutsideScopesLabel).push_back(' ');
      append_duration(buf, static_cast<int64_t>(e.more));
      buf.push_back('\n');
    } else {
      buf += tree_entry_text(trace, tree, e.agg);
      buf.push_back('\n');
      prefix += e.last ? "    " : "│   ";
      if (prefix_len.size() <= e.depth) prefix_len.resize(e.depth + 1);
      prefix_len[e.depth] = prefix.size();
      push_children(e.agg, e.depth + 1);
    }
    if (buf.size() >= kFlushAt) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace brickprof
