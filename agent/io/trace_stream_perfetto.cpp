// The streamed exit write's Perfetto trace (see trace_stream.h): the
// slices of each track in the order write_perfetto_trace sorts them, read
// from the node spill (CPU threads), the placed ranges (range lanes) and
// the staged records (GPU streams), never the whole trace.
//
// A track's slices go by start, the longer first, then by id
// (slice_precedes). A thread's pushes are in start order (trace_stream.h),
// so its id block is in that order but for nodes that start at the same
// nanosecond (a zero-length scope before a sibling), which are neighbours
// by id: each such run is sorted on its own. A thread id that owns several
// blocks (a thread that registered again) has them merged. Slices that
// overlap without nesting go to extra lanes, which the descriptors must
// name first: each track is read once to count its lanes, then once per
// lane to write it.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "agent/io/trace_stream_impl.h"
#include "agent/recorder/budget.h"
#include "trace/formats/perfetto.h"

namespace brickprof::agent {
namespace {

struct SpillItem {
  uint32_t id;
  SpilledNode node;
};

bool precedes(const SpillItem& a, const SpillItem& b) {
  return slice_precedes(a.node.start_ns, a.node.end_ns, a.id, b.node.start_ns, b.node.end_ns, b.id);
}

// One thread's id block in slice_precedes order.
class BlockCursor {
 public:
  BlockCursor(uint32_t first, uint32_t end) : next_(first), end_(end) {}
  // The next node, or null when the block is done.
  const SpillItem* peek(NodeSpill& spill) {
    if (pos_ == run_.size() && !fill(spill)) return nullptr;
    return &run_[pos_];
  }
  void take() { ++pos_; }

 private:
  // The next run of nodes that start at the same nanosecond.
  bool fill(NodeSpill& spill) {
    run_.clear();
    pos_ = 0;
    if (next_ == end_) return false;
    run_.push_back({next_, spill.get(next_)});
    for (++next_; next_ < end_; ++next_) {
      const SpilledNode r = spill.get(next_);
      if (r.start_ns != run_.front().node.start_ns) break;
      run_.push_back({next_, r});
    }
    if (run_.size() > 1) std::sort(run_.begin(), run_.end(), precedes);
    return true;
  }

  uint32_t next_, end_;
  std::vector<SpillItem> run_;
  size_t pos_ = 0;
};

// Memory the write's indexes take, from the budget (refused: not written).
class Charge {
 public:
  explicit Charge(uint64_t bytes) : bytes_(bytes) {
    if (!budget::charge_for_write(bytes_))
      throw std::runtime_error(
          "perfetto: not written, its track indexes did not fit BRICKPROF_BUFFER_MB (brickprof "
          "report --perfetto writes it from the JSON trace)");
  }
  ~Charge() { budget::release(bytes_); }
  Charge(const Charge&) = delete;
  Charge& operator=(const Charge&) = delete;

 private:
  uint64_t bytes_;
};

// Calls visit(item) for a thread id's CPU nodes in slice_precedes order:
// the blocks merged (one, almost always).
template <typename Visit>
void visit_thread(NodeSpill& spill, const std::vector<std::pair<uint32_t, uint32_t>>& blocks,
                  Visit visit) {
  std::vector<BlockCursor> cursors;
  for (const auto& [first, end] : blocks) cursors.emplace_back(first, end);
  for (;;) {
    BlockCursor* best = nullptr;
    const SpillItem* best_item = nullptr;
    for (BlockCursor& c : cursors) {
      const SpillItem* item = c.peek(spill);
      if (item && (!best_item || precedes(*item, *best_item))) {
        best = &c;
        best_item = item;
      }
    }
    if (!best) return;
    visit(*best_item);
    best->take();
  }
}

// The lanes a track needs: `each(place)` calls place(start, end) per slice.
template <typename Each>
size_t count_lanes(Each each) {
  LaneSplitter splitter;
  each([&](int64_t start, int64_t end) { return splitter.place(start, end); });
  return splitter.lanes();
}

}  // namespace

void TraceStream::Impl::write_perfetto(std::ostream& out) {
  // CPU threads: each id's blocks; range lanes: their ranges in order.
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> blocks;
  for (size_t i = 0; i < threads.size(); ++i) {
    const uint32_t end = i + 1 < threads.size() ? first_id[i + 1] : cpu_count;
    if (first_id[i] != end) blocks[threads[i].tid].emplace_back(first_id[i], end);
  }
  for (const auto& [tid, scopes] : python.by_thread) blocks[tid];  // perhaps its only slices
  // A thread's slices: its CPU nodes merged with the Python frames' scopes
  // on it, in slice order (visit_cpu(item) or visit_python(scope)).
  const auto visit_track = [&](uint32_t tid, auto visit_cpu, auto visit_python) {
    static const std::vector<uint32_t> kNone;
    const auto it = python.by_thread.find(tid);
    const std::vector<uint32_t>& scopes = it == python.by_thread.end() ? kNone : it->second;
    size_t next = 0;
    const auto python_before = [&](const SpillItem* item) {
      for (; next < scopes.size(); ++next) {
        const PythonScope& p = python.scopes[scopes[next]];
        if (item && !slice_precedes(p.start_ns, p.end_ns, python.id(scopes[next]),
                                    item->node.start_ns, item->node.end_ns, item->id))
          return;
        visit_python(scopes[next]);
      }
    };
    visit_thread(spill, blocks.at(tid), [&](const SpillItem& item) {
      python_before(&item);
      visit_cpu(item);
    });
    python_before(nullptr);
  };
  const auto range_id = [&](uint32_t i) { return cpu_count + i; };
  Charge range_charge(sizeof(uint32_t) * ranges.size());
  std::vector<uint32_t> range_order(ranges.size());
  for (uint32_t i = 0; i < ranges.size(); ++i) range_order[i] = i;
  std::sort(range_order.begin(), range_order.end(), [&](uint32_t a, uint32_t b) {
    const PlacedRange& x = ranges[a];
    const PlacedRange& y = ranges[b];
    if (x.lane != y.lane) return x.lane < y.lane;
    return slice_precedes(x.start_ns, x.end_ns, range_id(a), y.start_ns, y.end_ns, range_id(b));
  });
  // GPU streams: the kept records by (device, stream), then slice order.
  Charge gpu_charge(sizeof(uint32_t) * gpu.count());
  std::vector<uint32_t> gpu_order;
  gpu_order.reserve(gpu.count());
  for (uint32_t i = 0; i < gpu.staged(); ++i)
    if (gpu.record(i).id != kNoNode) gpu_order.push_back(i);
  std::sort(gpu_order.begin(), gpu_order.end(), [&](uint32_t a, uint32_t b) {
    const StagedRecord& x = gpu.record(a);
    const StagedRecord& y = gpu.record(b);
    if (x.detail.device != y.detail.device) return x.detail.device < y.detail.device;
    if (x.detail.stream != y.detail.stream) return x.detail.stream < y.detail.stream;
    return slice_precedes(x.node.start_ns, x.node.end_ns, x.id, y.node.start_ns, y.node.end_ns,
                          y.id);
  });
  const auto same_stream = [&](uint32_t a, uint32_t b) {
    return gpu.record(a).detail.device == gpu.record(b).detail.device &&
           gpu.record(a).detail.stream == gpu.record(b).detail.stream;
  };

  PerfettoTraceWriter writer(header, exemplars.strings.size(), out);
  for (const auto& [tid, tid_blocks] : blocks)
    writer.add_thread(
        tid, count_lanes([&](auto place) {
          visit_track(
              tid, [&](const SpillItem& item) { place(item.node.start_ns, item.node.end_ns); },
              [&](uint32_t scope) {
                place(python.scopes[scope].start_ns, python.scopes[scope].end_ns);
              });
        }));
  for (size_t begin = 0; begin < range_order.size();) {
    size_t end = begin + 1;
    while (end < range_order.size() &&
           ranges[range_order[end]].lane == ranges[range_order[begin]].lane)
      ++end;
    writer.add_thread(kRangeLaneBase + ranges[range_order[begin]].lane,
                      count_lanes([&](auto place) {
                        for (size_t k = begin; k < end; ++k)
                          place(ranges[range_order[k]].start_ns, ranges[range_order[k]].end_ns);
                      }));
    begin = end;
  }
  // Where each stream's records start in gpu_order.
  std::map<std::pair<uint32_t, uint32_t>, std::pair<size_t, size_t>> stream_span;
  for (size_t begin = 0; begin < gpu_order.size();) {
    size_t end = begin + 1;
    while (end < gpu_order.size() && same_stream(gpu_order[begin], gpu_order[end])) ++end;
    const GpuDetail& d = gpu.record(gpu_order[begin]).detail;
    stream_span[{d.device, d.stream}] = {begin, end};
    writer.add_stream(d.device, d.stream, count_lanes([&](auto place) {
                        for (size_t k = begin; k < end; ++k)
                          place(gpu.record(gpu_order[k]).node.start_ns,
                                gpu.record(gpu_order[k]).node.end_ns);
                      }));
    begin = end;
  }
  writer.descriptors();

  std::vector<uint32_t> launched;  // a CPU node's GPU work, by id
  const std::vector<uint32_t>& by_parent = gpu.by_parent();
  const auto write_cpu = [&](const SpillItem& item, uint32_t tid) {
    std::string_view name;
    const Node n = cpu_node(item.id, item.node, tid, &name);
    const StringId id =
        n.kind == NodeKind::kLayer ? layer_name(item.node.arg) : site_name(item.node.site);
    launched.clear();
    auto at =
        std::lower_bound(by_parent.begin(), by_parent.end(), item.id,
                         [&](uint32_t r, uint32_t p) { return gpu.record(r).node.parent < p; });
    for (; at != by_parent.end() && gpu.record(*at).node.parent == item.id; ++at)
      launched.push_back(gpu.record(*at).id);
    std::sort(launched.begin(), launched.end());
    writer.slice(item.id, n, name, id, nullptr, launched, false);
  };
  const auto write_python = [&](uint32_t scope) {
    const Node n = python_node(scope);
    launched.clear();
    for (uint32_t c = python.first_child[scope]; c < python.first_child[scope + 1]; ++c)
      if (!python.children[c].is_scope) launched.push_back(python.children[c].id);
    std::sort(launched.begin(), launched.end());
    writer.slice(python.id(scope), n, exemplar_text(n.name), n.name, nullptr, launched, false);
  };
  const auto write_range = [&](uint32_t i) {
    std::string_view name;
    const Node n = range_node(i, &name);
    writer.slice(range_id(i), n, name, site_name(ranges[i].site), nullptr, {}, false);
  };
  const auto write_gpu = [&](uint32_t index) {
    const StagedRecord& r = gpu.record(index);
    // Every CPU node is a layer, brick or scope: work under one is launched from the CPU.
    const bool from_cpu = r.node.parent != kNoNode || python.grouped(index);
    if (!python.grouped(index)) {
      writer.slice(r.id, r.node, gpu.name(r), gpu_name(r), &r.detail, {}, from_cpu);
      return;
    }
    Node n = r.node;
    n.parent = python.id(python.scope_of[index]);
    writer.slice(r.id, n, gpu.name(r), gpu_name(r), &r.detail, {}, from_cpu);
  };

  const std::vector<PerfettoTraceWriter::Track>& tracks = writer.tracks();
  size_t next_range = 0;
  for (size_t t = 0; t < tracks.size(); ++t) {
    const PerfettoTraceWriter::Track& track = tracks[t];
    for (size_t lane = 0; lane < track.lanes; ++lane) {
      writer.begin_lane(t, lane);
      LaneSplitter splitter;
      const auto on_lane = [&](int64_t start, int64_t end) {
        return track.lanes == 1 || splitter.place(start, end) == lane;
      };
      if (track.stream) {
        const auto [begin, end] = stream_span.at({track.id, track.stream_id});
        for (size_t k = begin; k < end; ++k) {
          const StagedRecord& r = gpu.record(gpu_order[k]);
          if (on_lane(r.node.start_ns, r.node.end_ns)) write_gpu(gpu_order[k]);
        }
      } else if (is_range_lane(track.id)) {
        size_t k = next_range;
        for (; k < range_order.size() && kRangeLaneBase + ranges[range_order[k]].lane == track.id;
             ++k)
          if (on_lane(ranges[range_order[k]].start_ns, ranges[range_order[k]].end_ns))
            write_range(range_order[k]);
        if (lane + 1 == track.lanes) next_range = k;
      } else {
        visit_track(
            track.id,
            [&](const SpillItem& item) {
              if (on_lane(item.node.start_ns, item.node.end_ns)) write_cpu(item, track.id);
            },
            [&](uint32_t scope) {
              const PythonScope& p = python.scopes[scope];
              if (on_lane(p.start_ns, p.end_ns)) write_python(scope);
            });
      }
      writer.end_lane();
    }
  }
  writer.finish();
}

}  // namespace brickprof::agent
