// Writes collapsed stacks (see export_folded.h).
#include "analysis/export_folded.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/queries.h"

namespace brickprof {
namespace {

// A frame name may hold anything but the stack separator and line breaks.
void append_frame(std::string& out, std::string_view name) {
  for (char c : name) out.push_back(c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c);
}

}  // namespace

void write_folded(const Trace& trace, std::ostream& out) {
  write_folded(trace, build_aggregate_tree(trace), out);
}

void write_folded(const Trace& trace, const AggregateTree& tree, std::ostream& out) {
  // Each aggregate entry is one stack. Different entries can still spell the
  // same stack (a kernel under two launch configurations), so sum by text.
  // Parents come before children, so each stack extends its parent's.
  const size_t count = tree.nodes.size();
  std::vector<std::string> stacks(count);
  std::map<std::string, int64_t> weights;
  const bool threads = tree.multi_thread();
  for (uint32_t agg = 1; agg < count; ++agg) {
    const AggregateNode& a = tree.nodes[agg];
    const std::string& parent = stacks[a.parent];
    std::string& s = stacks[agg];
    if (a.first == kNoNode) {  // a thread group: a frame only with several threads
      if (threads) append_frame(s, thread_label(trace, a.thread));
      continue;
    }
    s = parent;
    if (!s.empty()) s.push_back(';');
    append_frame(s, node_label(trace, trace.nodes[a.first]));
    if (a.self_ns > 0) weights[s] += a.self_ns;
    // A stack is only needed while its children are still to come.
    if (a.first_child == kNoAgg) std::string().swap(s);
  }
  std::string buf;
  for (const auto& [stack, ns] : weights) {
    buf += stack;
    buf.push_back(' ');
    buf += std::to_string(ns);
    buf.push_back('\n');
    if (buf.size() >= (1 << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace brickprof
