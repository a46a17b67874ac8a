// The streamed exit write's tracks for the Perfetto sink (see
// trace_stream.h): the slices of each track in the order a held trace's
// tracks give them (slice_precedes), read from the node spill (CPU
// threads), the placed ranges (range lanes) and the staged records (GPU
// streams), never the whole trace.
//
// A track's slices go by start, the longer first, then by id
// (slice_precedes). A thread's pushes are in start order (trace_stream.h),
// so its id block is in that order but for nodes that start at the same
// nanosecond (a zero-length scope before a sibling), which are neighbours
// by id: each such run is sorted on its own. A thread id that owns several
// blocks (a thread that registered again) has them merged. Slices that
// overlap without nesting go to extra lanes, which the descriptors must
// name first: the sink reads each track once to count its lanes, then once
// per lane to write it.
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

// The grouped trace's tracks, in the order the Perfetto trace lists them:
// CPU threads (each id's blocks of the spill merged with the Python frames'
// scopes on it), range lanes, then GPU streams (the kept records by
// (device, stream)), each walked in slice order as often as asked.
}  // namespace

class TraceStream::Impl::StreamTracks : public TrackWalker {
 public:
  explicit StreamTracks(Impl& s)
      : s_(s),
        range_charge_(sizeof(uint32_t) * s.ranges.size()),
        gpu_charge_(sizeof(uint32_t) * s.gpu.count()) {
    for (size_t i = 0; i < s.threads.size(); ++i) {
      const uint32_t end = i + 1 < s.threads.size() ? s.first_id[i + 1] : s.cpu_count;
      if (s.first_id[i] != end) blocks_[s.threads[i].tid].emplace_back(s.first_id[i], end);
    }
    for (const auto& [tid, scopes] : s.python.by_thread) blocks_[tid];  // perhaps its only slices
    for (const auto& [tid, unused] : blocks_) add({false, tid, 0}, 0, 0);

    range_order_.resize(s.ranges.size());
    for (uint32_t i = 0; i < s.ranges.size(); ++i) range_order_[i] = i;
    std::sort(range_order_.begin(), range_order_.end(), [&](uint32_t a, uint32_t b) {
      const PlacedRange& x = s.ranges[a];
      const PlacedRange& y = s.ranges[b];
      if (x.lane != y.lane) return x.lane < y.lane;
      return slice_precedes(x.start_ns, x.end_ns, range_id(a), y.start_ns, y.end_ns, range_id(b));
    });
    for (size_t begin = 0; begin < range_order_.size();) {
      const uint32_t lane = s.ranges[range_order_[begin]].lane;
      size_t end = begin + 1;
      while (end < range_order_.size() && s.ranges[range_order_[end]].lane == lane) ++end;
      add({false, kRangeLaneBase + lane, 0}, begin, end);
      begin = end;
    }

    gpu_order_.reserve(s.gpu.count());
    for (uint32_t i = 0; i < s.gpu.staged(); ++i)
      if (s.gpu.record(i).id != kNoNode) gpu_order_.push_back(i);
    std::sort(gpu_order_.begin(), gpu_order_.end(), [&](uint32_t a, uint32_t b) {
      const StagedRecord& x = s.gpu.record(a);
      const StagedRecord& y = s.gpu.record(b);
      if (x.detail.device != y.detail.device) return x.detail.device < y.detail.device;
      if (x.detail.stream != y.detail.stream) return x.detail.stream < y.detail.stream;
      return slice_precedes(x.node.start_ns, x.node.end_ns, x.id, y.node.start_ns, y.node.end_ns,
                            y.id);
    });
    for (size_t begin = 0; begin < gpu_order_.size();) {
      const GpuDetail& d = s.gpu.record(gpu_order_[begin]).detail;
      size_t end = begin + 1;
      while (end < gpu_order_.size() && s.gpu.record(gpu_order_[end]).detail.device == d.device &&
             s.gpu.record(gpu_order_[end]).detail.stream == d.stream)
        ++end;
      add({true, d.device, d.stream}, begin, end);
      begin = end;
    }
  }

  const std::vector<Track>& tracks() override { return tracks_; }

  void times(size_t track, const std::function<void(int64_t, int64_t)>& visit) override {
    const Track& t = tracks_[track];
    const auto [begin, end] = spans_[track];
    if (t.stream) {
      for (size_t k = begin; k < end; ++k) {
        const Node& n = s_.gpu.record(gpu_order_[k]).node;
        visit(n.start_ns, n.end_ns);
      }
    } else if (is_range_lane(t.id)) {
      for (size_t k = begin; k < end; ++k)
        visit(s_.ranges[range_order_[k]].start_ns, s_.ranges[range_order_[k]].end_ns);
    } else {
      visit_cpu_track(
          t.id, [&](const SpillItem& item) { visit(item.node.start_ns, item.node.end_ns); },
          [&](uint32_t scope) {
            visit(s_.python.scopes[scope].start_ns, s_.python.scopes[scope].end_ns);
          });
    }
  }

  void slices(size_t track, const std::function<void(const SliceEvent&)>& visit) override {
    const Track& t = tracks_[track];
    const auto [begin, end] = spans_[track];
    if (t.stream) {
      for (size_t k = begin; k < end; ++k) gpu_slice(gpu_order_[k], visit);
    } else if (is_range_lane(t.id)) {
      for (size_t k = begin; k < end; ++k) {
        const uint32_t i = range_order_[k];
        std::string_view name;
        const Node n = s_.range_node(i, &name);
        visit({range_id(i), n, name, s_.site_name(s_.ranges[i].site), nullptr, {}, false});
      }
    } else {
      visit_cpu_track(
          t.id, [&](const SpillItem& item) { cpu_slice(item, t.id, visit); },
          [&](uint32_t scope) { python_slice(scope, visit); });
    }
  }

 private:
  void add(Track track, size_t begin, size_t end) {
    tracks_.push_back(track);
    spans_.emplace_back(begin, end);
  }
  uint32_t range_id(uint32_t i) const { return s_.cpu_count + i; }

  // A thread's slices: its CPU nodes merged with the Python frames' scopes
  // on it, in slice order (visit_cpu(item) or visit_python(scope)).
  template <typename VisitCpu, typename VisitPython>
  void visit_cpu_track(uint32_t tid, VisitCpu visit_cpu, VisitPython visit_python) {
    static const std::vector<uint32_t> kNone;
    const auto& python = s_.python;
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
    visit_thread(s_.spill, blocks_.at(tid), [&](const SpillItem& item) {
      python_before(&item);
      visit_cpu(item);
    });
    python_before(nullptr);
  }

  void cpu_slice(const SpillItem& item, uint32_t tid,
                 const std::function<void(const SliceEvent&)>& visit) {
    std::string_view name;
    const Node n = s_.cpu_node(item.id, item.node, tid, &name);
    const StringId name_id =
        n.kind == NodeKind::kLayer ? s_.layer_name(item.node.arg) : s_.site_name(item.node.site);
    launched_.clear();
    const std::vector<uint32_t>& by_parent = s_.gpu.by_parent();
    auto at =
        std::lower_bound(by_parent.begin(), by_parent.end(), item.id,
                         [&](uint32_t r, uint32_t p) { return s_.gpu.record(r).node.parent < p; });
    for (; at != by_parent.end() && s_.gpu.record(*at).node.parent == item.id; ++at)
      launched_.push_back(s_.gpu.record(*at).id);
    std::sort(launched_.begin(), launched_.end());
    visit({item.id, n, name, name_id, nullptr, launched_, false});
  }

  void python_slice(uint32_t scope, const std::function<void(const SliceEvent&)>& visit) {
    const auto& python = s_.python;
    const Node n = s_.python_node(scope);
    launched_.clear();
    for (uint32_t c = python.first_child[scope]; c < python.first_child[scope + 1]; ++c)
      if (!python.children[c].is_scope) launched_.push_back(python.children[c].id);
    std::sort(launched_.begin(), launched_.end());
    visit({python.id(scope), n, s_.exemplar_text(n.name), n.name, nullptr, launched_, false});
  }

  void gpu_slice(uint32_t index, const std::function<void(const SliceEvent&)>& visit) {
    const StagedRecord& r = s_.gpu.record(index);
    const bool grouped = s_.python.grouped(index);
    // Every CPU node is a layer, brick or scope: work under one is launched from the CPU.
    const bool from_cpu = r.node.parent != kNoNode || grouped;
    Node n = r.node;
    if (grouped) n.parent = s_.python.id(s_.python.scope_of[index]);
    visit({r.id, n, s_.gpu.name(r), s_.gpu_name(r), &r.detail, {}, from_cpu});
  }

  Impl& s_;
  Charge range_charge_, gpu_charge_;
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> blocks_;  // CPU ids by thread
  std::vector<uint32_t> range_order_, gpu_order_;
  std::vector<Track> tracks_;
  std::vector<std::pair<size_t, size_t>> spans_;  // each track's in range_order_ or gpu_order_
  std::vector<uint32_t> launched_;                // a slice's GPU work, by id
};

void TraceStream::Impl::feed_tracks(TraceSink& sink) {
  StreamTracks tracks(*this);
  sink.tracks(tracks);
}

}  // namespace brickprof::agent
