// Replays per-thread event streams into CPU nodes (see replay.h).
#include "agent/replay.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace brickprof::agent {
namespace {

double double_of(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Node names are interned into the trace's own table, once per site.
class NameCache {
 public:
  explicit NameCache(Trace& trace) : trace_(trace) {}
  StringId site_name(const SiteInfo& info) {
    auto it = by_recorder_id_.find(info.name);
    if (it != by_recorder_id_.end()) return it->second;
    StringId id = trace_.strings.intern(Recorder::strings().view(info.name));
    by_recorder_id_.emplace(info.name, id);
    return id;
  }
  StringId layer_name(uint64_t index) {
    auto it = layers_.find(index);
    if (it != layers_.end()) return it->second;
    StringId id = trace_.strings.intern("Layer " + std::to_string(index));
    layers_.emplace(index, id);
    return id;
  }

 private:
  Trace& trace_;
  std::unordered_map<StringId, StringId> by_recorder_id_;
  std::unordered_map<uint64_t, StringId> layers_;
};

}  // namespace

ReplayResult replay(const std::vector<Recorder::ThreadEvents>& threads, const Clock& clock,
                    uint64_t end_tsc, Trace& trace) {
  ReplayResult result;
  NameCache names(trace);
  std::vector<uint32_t> open;
  for (const Recorder::ThreadEvents& te : threads) {
    open.clear();
    uint64_t last_tsc = 0;
    for (size_t c = 0; c < te.chunks.size(); ++c) {
      const uint64_t* end = te.chunks[c] + te.counts[c];
      for (const uint64_t* w = te.chunks[c]; w < end;) {
        // Only the record's own words are read (Event is a view).
        const Event& e = *reinterpret_cast<const Event*>(w);
        w += e.words();
        last_tsc = e.type() == EventType::kCudaApi ? e.b : e.tsc;
        uint32_t top = open.empty() ? kNoNode : open.back();
        switch (e.type()) {
          case EventType::kPush:
          case EventType::kMark: {
            SiteInfo info = Recorder::site(e.site());
            Node n;
            n.kind = info.kind;
            n.thread = te.tid;
            n.parent = top;
            n.start_ns = n.end_ns = clock.to_ns(e.tsc);
            if (info.kind == NodeKind::kLayer) {
              n.layer_index = static_cast<int32_t>(e.a);
              n.name = names.layer_name(e.a);
            } else {
              n.name = names.site_name(info);
              n.elements = e.type() == EventType::kPush ? e.a : 0;
            }
            if (info.kind == NodeKind::kBrick) {
              n.brick_id = info.brick_id;
              n.category = info.category;
            }
            uint32_t id = trace.add_node(n);
            if (top != kNoNode) trace.add_edge(top, id, EdgeType::kContains);
            if (e.type() == EventType::kPush) open.push_back(id);
            break;
          }
          case EventType::kPop:
            if (open.empty()) {
              ++result.unbalanced_pops;
            } else {
              trace.nodes[open.back()].end_ns = clock.to_ns(e.tsc);
              open.pop_back();
            }
            break;
          case EventType::kWork:
            if (top != kNoNode) {
              trace.nodes[top].flops += double_of(e.a);
              trace.nodes[top].bytes_moved += double_of(e.b);
            }
            break;
          case EventType::kCudaApi:
            result.launches.by_correlation[e.a] =
                LaunchPoint{top, te.tid, clock.to_ns(e.tsc), clock.to_ns(e.b)};
            break;
          case EventType::kGraphNode:
            result.launches.scope_of_graph_node[e.a] = top;
            break;
        }
      }
    }
    // A thread cut off at the memory cap ends where its record ends; scopes
    // open at exit end at exit. Only the latter are "open at exit".
    int64_t close_ns = clock.to_ns(te.truncated ? last_tsc : end_tsc);
    if (!te.truncated) result.open_scopes_at_exit += open.size();
    for (uint32_t id : open) trace.nodes[id].end_ns = std::max(close_ns, trace.nodes[id].start_ns);
  }
  return result;
}

}  // namespace brickprof::agent
